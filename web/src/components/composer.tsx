import { signal } from '@preact/signals';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { uploadFile } from '../api';
import { live, sendMessage, stopTurn } from '../chat-store';
import { bytes } from '../format';
import { errorText } from '../state';
import { Icon } from './icons';

/**
 * The message box. Enter sends, Shift+Enter makes a new line (and Enter while an IME composes does
 * nothing). Images (png/jpeg/gif/webp, up to 4, 5 MB each) go with the message as base64; any other file is
 * uploaded to the workspace at once and the message gets a line `Attached: <path>` per file, which the
 * agent reads with its file tools. The draft survives switching pages (module signal).
 */

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];
const MAX_IMAGES = 4;
const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

interface PendingImage {
  id: number;
  name: string;
  mediaType: string;
  data: string;
}

interface PendingFile {
  id: number;
  name: string;
  size: number;
  state: 'uploading' | 'done' | 'failed';
  path?: string;
  error?: string;
}

const draft = signal('');

/** Puts text into the message box (the welcome screen's suggestions). */
export function setDraft(text: string): void {
  draft.value = text;
  document.getElementById('composer-input')?.focus();
}
let fileSeq = 0;

function readBase64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(reader.error ?? new Error('Could not read the file.'));
    reader.readAsDataURL(file);
  });
}

export function Composer({ disabledReason }: { disabledReason?: string | null }) {
  const [images, setImages] = useState<PendingImage[]>([]);
  const [files, setFiles] = useState<PendingFile[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  const area = useRef<HTMLTextAreaElement>(null);
  const picker = useRef<HTMLInputElement>(null);
  const streaming = live.value !== null;
  const uploading = files.some((file) => file.state === 'uploading');
  const text = draft.value;
  const canSend =
    !streaming && !uploading && !disabledReason && (text.trim().length > 0 || images.length > 0);

  // Grow with the text up to a limit (the stylesheet caps max-height; past it the box scrolls).
  useLayoutEffect(() => {
    const box = area.current;
    if (!box) return;
    box.style.height = 'auto';
    box.style.height = `${box.scrollHeight}px`;
  }, [text]);

  useEffect(() => {
    // Focus the box when the page opens on a wide screen (on phones that would pop the keyboard up).
    if (window.matchMedia('(min-width: 641px)').matches) area.current?.focus();
  }, []);

  const addFiles = async (list: Iterable<File>) => {
    setProblem(null);
    const incoming = [...list];
    let imageCount = images.length;
    for (const file of incoming) {
      if (IMAGE_TYPES.includes(file.type)) {
        if (imageCount >= MAX_IMAGES) {
          setProblem(`Up to ${MAX_IMAGES} images per message.`);
          continue;
        }
        if (file.size > MAX_IMAGE_BYTES) {
          setProblem(`${file.name} is ${bytes(file.size)}; images can be up to 5 MB.`);
          continue;
        }
        imageCount++;
        try {
          const data = await readBase64(file);
          setImages((current) => [
            ...current,
            { id: ++fileSeq, name: file.name, mediaType: file.type, data },
          ]);
        } catch (error) {
          setProblem(errorText(error));
        }
        continue;
      }
      const id = ++fileSeq;
      setFiles((current) => [...current, { id, name: file.name, size: file.size, state: 'uploading' }]);
      uploadFile(file).then(
        (uploaded) =>
          setFiles((current) =>
            current.map((item) => (item.id === id ? { ...item, state: 'done', path: uploaded.path } : item)),
          ),
        (error) =>
          setFiles((current) =>
            current.map((item) =>
              item.id === id ? { ...item, state: 'failed', error: errorText(error) } : item,
            ),
          ),
      );
    }
  };

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
    setImages([]);
    setFiles([]);
    setProblem(null);
  };

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      submit();
    }
  };

  const onPaste = (event: ClipboardEvent) => {
    const pasted = [...(event.clipboardData?.files ?? [])];
    if (pasted.length) {
      event.preventDefault();
      void addFiles(pasted);
    }
  };

  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    if (event.dataTransfer?.files.length) void addFiles(event.dataTransfer.files);
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
      onDrop={onDrop}
    >
      {images.length || files.length ? (
        <ul class="chips" aria-label="Attachments to send">
          {images.map((image) => (
            <li key={image.id} class="chip chip-image">
              <img src={`data:${image.mediaType};base64,${image.data}`} alt="" />
              <span class="chip-name">{image.name}</span>
              <button
                type="button"
                class="icon-btn"
                aria-label={`Remove ${image.name}`}
                onClick={() => setImages((current) => current.filter((item) => item.id !== image.id))}
              >
                <Icon name="close" size={14} />
              </button>
            </li>
          ))}
          {files.map((file) => (
            <li key={file.id} class={`chip chip-${file.state}`} title={file.error ?? file.path ?? ''}>
              <Icon name="file" size={14} />
              <span class="chip-name">
                {file.name}
                <span class="muted">
                  {' '}
                  {file.state === 'uploading'
                    ? 'uploading…'
                    : file.state === 'failed'
                      ? 'failed'
                      : bytes(file.size)}
                </span>
              </span>
              <button
                type="button"
                class="icon-btn"
                aria-label={`Remove ${file.name}`}
                onClick={() => setFiles((current) => current.filter((item) => item.id !== file.id))}
              >
                <Icon name="close" size={14} />
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      {problem || files.some((file) => file.state === 'failed') ? (
        <p class="field-error" role="alert">
          {problem ?? files.find((file) => file.state === 'failed')?.error}
        </p>
      ) : null}
      <div class="composer-row">
        <input
          ref={picker}
          type="file"
          multiple
          hidden
          onChange={(event) => {
            const input = event.currentTarget;
            if (input.files) void addFiles(input.files);
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
        <label for="composer-input" class="visually-hidden">
          Message
        </label>
        <textarea
          id="composer-input"
          ref={area}
          rows={1}
          value={text}
          placeholder={disabledReason ?? 'Message Wren…'}
          onInput={(event) => {
            draft.value = event.currentTarget.value;
          }}
          onKeyDown={onKeyDown}
          onPaste={onPaste}
          enterkeyhint="send"
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
