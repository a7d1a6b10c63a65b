import { signal } from '@preact/signals';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { sendMessage, stopTurn } from '../chat-send';
import { live } from '../chat-store';
import { AttachmentChips } from './attachment-chips';
import { Icon } from './icons';
import { useAttachments } from './use-attachments';

/**
 * The message box. Enter sends, Shift+Enter makes a new line (and Enter while an IME composes does
 * nothing). Attached images go with the message; other files are uploaded at once and the message gets a
 * line `Attached: <path>` per file, which the agent reads with its file tools (use-attachments.ts). The
 * draft survives switching pages (module signal).
 */

const draft = signal('');

/** Puts text into the message box (the welcome screen's suggestions). */
export function setDraft(text: string): void {
  draft.value = text;
  document.getElementById('composer-input')?.focus();
}

/** The text field: grows with its text, focused when the page opens on a wide screen. */
function MessageInput({
  placeholder,
  onEnter,
  onFiles,
}: {
  placeholder: string;
  onEnter: () => void;
  onFiles: (files: File[]) => void;
}) {
  const area = useRef<HTMLTextAreaElement>(null);
  const text = draft.value;

  // Grow with the text up to a limit (the stylesheet caps max-height; past it the box scrolls).
  useLayoutEffect(() => {
    const box = area.current;
    if (!box) return;
    box.style.height = 'auto';
    box.style.height = `${box.scrollHeight}px`;
  }, [text]);

  useEffect(() => {
    // Not on phones: focusing would pop the on-screen keyboard up.
    if (window.matchMedia('(min-width: 641px)').matches) area.current?.focus();
  }, []);

  return (
    <>
      <label for="composer-input" class="visually-hidden">
        Message
      </label>
      <textarea
        id="composer-input"
        ref={area}
        rows={1}
        value={text}
        placeholder={placeholder}
        onInput={(event) => {
          draft.value = event.currentTarget.value;
        }}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
            event.preventDefault();
            onEnter();
          }
        }}
        onPaste={(event) => {
          const pasted = [...(event.clipboardData?.files ?? [])];
          if (pasted.length) {
            event.preventDefault();
            onFiles(pasted);
          }
        }}
        enterkeyhint="send"
      />
    </>
  );
}

/** The paper clip: opens the browser's file picker. */
function AttachButton({ onFiles }: { onFiles: (files: FileList) => void }) {
  const picker = useRef<HTMLInputElement>(null);
  return (
    <>
      <input
        ref={picker}
        type="file"
        multiple
        hidden
        onChange={(event) => {
          const input = event.currentTarget;
          if (input.files) onFiles(input.files);
          input.value = '';
        }}
      />
      <button
        type="button"
        class="icon-btn composer-attach"
        aria-label="Attach files"
        title="Attach files"
        onClick={() => picker.current?.click()}
      >
        <Icon name="clip" size={20} />
      </button>
    </>
  );
}

export function Composer({ disabledReason }: { disabledReason?: string | null }) {
  const attachments = useAttachments();
  const { images, files, problem } = attachments;
  const [dragging, setDragging] = useState(false);
  const streaming = live.value !== null;
  const text = draft.value;
  const canSend =
    !streaming && !attachments.uploading && !disabledReason && (text.trim().length > 0 || images.length > 0);

  const submit = () => {
    if (!canSend) return;
    const attached = files.flatMap((file) =>
      file.state === 'done' && file.path ? [`Attached: ${file.path}`] : [],
    );
    const message = [text.trim(), ...attached].filter(Boolean).join('\n');
    void sendMessage({
      text: message,
      images: images.map((image) => ({ data: image.data, mediaType: image.mediaType })),
    });
    draft.value = '';
    attachments.clear();
  };

  return (
    <form
      class={`composer${dragging ? ' dragging' : ''}`}
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
      onDragOver={(event) => {
        event.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={(event) => {
        event.preventDefault();
        setDragging(false);
        if (event.dataTransfer?.files.length) void attachments.add(event.dataTransfer.files);
      }}
    >
      <AttachmentChips
        images={images}
        files={files}
        onRemoveImage={attachments.removeImage}
        onRemoveFile={attachments.removeFile}
      />
      {problem ? (
        <p class="field-error" role="alert">
          {problem}
        </p>
      ) : null}
      <div class="composer-row">
        <AttachButton onFiles={(list) => void attachments.add(list)} />
        <MessageInput
          placeholder={disabledReason ?? 'Message Wren…'}
          onEnter={submit}
          onFiles={(list) => void attachments.add(list)}
        />
        {streaming ? (
          <button type="button" class="send-btn stop" aria-label="Stop" title="Stop" onClick={stopTurn}>
            <Icon name="stop" size={18} />
          </button>
        ) : (
          <button type="submit" class="send-btn" aria-label="Send" title="Send (Enter)" disabled={!canSend}>
            <Icon name="send" size={18} />
          </button>
        )}
      </div>
      <p class="composer-hint">Enter to send · Shift+Enter for a new line · /new starts a new chat</p>
    </form>
  );
}
