import { downloadFile } from '../api';
import type { AssistantItem, Segment, ToolSegment, UserItem } from '../chat-items';
import { bytes, prettyJson } from '../format';
import { errorText, toast } from '../state';
import { CopyButton, Time } from './common';
import { Icon } from './icons';
import { MarkdownView } from './markdown-view';
import { memo } from './memo';

/**
 * One message of the conversation. Layout contract (no shift while streaming): the avatar column and the
 * toolbar row (copy, time) are always rendered — the toolbar is only hidden (visibility) while the reply
 * streams — so finishing a reply changes no box size.
 */

const RESULT_LIMIT = 6000;

function ToolView({ tool }: { tool: ToolSegment }) {
  const status = tool.running ? 'running' : tool.isError ? 'failed' : 'done';
  const result = tool.result ?? '';
  return (
    <details class={`tool tool-${status}`}>
      <summary>
        <span class="tool-status" aria-hidden="true">
          {tool.running ? (
            <span class="spinner small" />
          ) : (
            <Icon name={tool.isError ? 'close' : 'tool'} size={14} />
          )}
        </span>
        <span class="tool-name">{tool.name}</span>
        {tool.hint ? <span class="tool-hint">{tool.hint}</span> : null}
        <span class="visually-hidden">({status})</span>
      </summary>
      <div class="tool-body">
        {tool.args ? (
          <>
            <div class="tool-label">Arguments</div>
            <pre>
              <code>{prettyJson(tool.args)}</code>
            </pre>
          </>
        ) : null}
        {tool.result !== undefined ? (
          <>
            <div class="tool-label">{tool.isError ? 'Error' : 'Result'}</div>
            <pre>
              <code>
                {result.length > RESULT_LIMIT
                  ? `${result.slice(0, RESULT_LIMIT)}\n… (${bytes(result.length)})`
                  : result}
              </code>
            </pre>
          </>
        ) : tool.running ? (
          <div class="muted">Running…</div>
        ) : null}
      </div>
    </details>
  );
}

function SegmentView({ segment, streaming }: { segment: Segment; streaming: boolean }) {
  return segment.type === 'text' ? (
    <MarkdownView text={segment.text} streaming={streaming} />
  ) : (
    <ToolView tool={segment} />
  );
}

export const UserMessage = memo(function UserMessage({ item }: { item: UserItem }) {
  return (
    <div class="msg msg-user">
      <div class="msg-body">
        {item.images.length ? (
          <div class="msg-images">
            {item.images.map((src, index) => (
              <img key={src.slice(-32)} src={src} alt={`Attachment ${index + 1}`} loading="lazy" />
            ))}
          </div>
        ) : null}
        {item.text ? <div class="bubble">{item.text}</div> : null}
        <div class="msg-tools">
          <CopyButton text={item.text} />
          <Time at={item.at} />
        </div>
      </div>
    </div>
  );
});

/** All text of an assistant message, for its copy button. */
function plainText(item: AssistantItem): string {
  return item.segments
    .flatMap((segment) => (segment.type === 'text' ? [segment.text] : []))
    .join('\n\n')
    .trim();
}

export const AssistantMessage = memo(function AssistantMessage({
  item,
  streaming = false,
}: {
  item: AssistantItem;
  streaming?: boolean;
}) {
  const empty = !item.segments.length && !item.error && !item.notice && !item.stopped;
  const last = item.segments.length - 1;
  return (
    <div class="msg msg-assistant" aria-busy={streaming}>
      <img class="avatar" src="/icon.svg" alt="" width="28" height="28" />
      <div class="msg-body">
        {item.unprompted ? <div class="msg-kicker">Sent on its own</div> : null}
        {empty && streaming ? (
          <div class="typing" role="status">
            <span />
            <span />
            <span />
            <span class="visually-hidden">Wren is thinking</span>
          </div>
        ) : null}
        {item.segments.map((segment, index) => (
          <SegmentView
            key={segment.type === 'tool' ? segment.id : `t${index}`}
            segment={segment}
            streaming={streaming && index === last}
          />
        ))}
        {item.attachments?.length ? (
          <ul class="attachments" aria-label="Attachments">
            {item.attachments.map((file) => (
              <li key={file.url}>
                <a
                  href={file.url}
                  download
                  onClick={(event) => {
                    // The link alone would carry only the cookie; the download needs the session key too.
                    event.preventDefault();
                    downloadFile(file.url, file.name).catch((error: unknown) =>
                      toast(errorText(error), 'error'),
                    );
                  }}
                >
                  <Icon name="file" size={16} /> {file.name} <span class="muted">({bytes(file.size)})</span>
                </a>
              </li>
            ))}
          </ul>
        ) : null}
        {item.notice ? <p class="notice">{item.notice}</p> : null}
        {item.stopped ? <p class="notice">Stopped.</p> : null}
        {item.error ? (
          <p class="msg-error" role="alert">
            {item.error}
          </p>
        ) : null}
        <div class="msg-tools" style={streaming ? { visibility: 'hidden' } : undefined}>
          <CopyButton text={() => plainText(item)} />
          <Time at={item.at} />
        </div>
      </div>
    </div>
  );
});
