/** The fields of a Mattermost post Wren reads (everything checked: events are untrusted input). */
export interface MattermostPost {
  id: string;
  userId: string;
  channelId: string;
  rootId: string;
  message: string;
  createAt: number;
  files: Array<{ id: string; name: string; mimeType: string; size?: number }>;
  /** A system message (`system_join_channel` …), or posted by a bot or webhook: never a turn. */
  automated: boolean;
}

const str = (value: unknown): string => (typeof value === 'string' ? value : '');

/** A post from a `posted` event's JSON-encoded `post` (or an object), or undefined when it is not one. */
export function readPost(raw: unknown): MattermostPost | undefined {
  let post: Record<string, unknown>;
  try {
    post = typeof raw === 'string' ? JSON.parse(raw) : (raw as Record<string, unknown>);
  } catch {
    return undefined;
  }
  if (typeof post !== 'object' || post === null) return undefined;
  const id = str(post['id']);
  const userId = str(post['user_id']);
  const channelId = str(post['channel_id']);
  if (!id || !userId || !channelId) return undefined;
  const props = (typeof post['props'] === 'object' && post['props'] !== null ? post['props'] : {}) as Record<
    string,
    unknown
  >;
  const metadata = (post['metadata'] ?? {}) as { files?: unknown };
  const infos = Array.isArray(metadata.files) ? metadata.files : [];
  const ids = Array.isArray(post['file_ids'])
    ? post['file_ids'].filter((item) => typeof item === 'string')
    : [];
  const files = ids.slice(0, 10).map((fileId: string) => {
    const info = infos.find((item: { id?: unknown } | null) => item?.id === fileId) as
      | { name?: unknown; mime_type?: unknown; size?: unknown }
      | undefined;
    return {
      id: fileId,
      name: str(info?.name) || 'file',
      mimeType: str(info?.mime_type),
      ...(typeof info?.size === 'number' ? { size: info.size } : {}),
    };
  });
  return {
    id,
    userId,
    channelId,
    rootId: str(post['root_id']),
    message: str(post['message']),
    createAt: typeof post['create_at'] === 'number' ? post['create_at'] : 0,
    files,
    automated:
      str(post['type']) !== '' ||
      String(props['from_bot']) === 'true' ||
      String(props['from_webhook']) === 'true',
  };
}

/**
 * `text` with every @-mention made inert (a word joiner after the `@`), outside code: a model's reply can
 * never notify `@channel`, `@all`, `@here` or anyone by name. Email addresses are left as they are.
 */
export function quietMentions(text: string): string {
  return text
    .split(/(```[\s\S]*?```|`[^`\n]*`)/)
    .map((part, index) => (index % 2 === 1 ? part : part.replace(/(^|[^\w.@])@(?=[\w.-])/g, '$1@\u2060')))
    .join('');
}
