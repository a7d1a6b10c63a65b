/**
 * The model ids a server's model list names, in the server's order: OpenAI-compatible `{data: [{id}]}` or
 * Ollama's `{models: [{name}]}` (an entry's `id`, `name` or `model`, whichever is a string first). Undefined
 * when the body is neither shape. Callers filter and cap the ids themselves.
 */
export function modelListIds(body: unknown): string[] | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const record = body as { data?: unknown; models?: unknown };
  const list = Array.isArray(record.data)
    ? record.data
    : Array.isArray(record.models)
      ? record.models
      : undefined;
  if (!list) return undefined;
  return list
    .map((item: unknown) => {
      const entry = (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>;
      const id = entry['id'] ?? entry['name'] ?? entry['model'];
      return typeof id === 'string' ? id : undefined;
    })
    .filter((id): id is string => id !== undefined);
}
