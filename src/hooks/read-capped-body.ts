/** A body read whole, or the sign that it passed the cap (what was read so far is dropped). */
export type CappedBody = { ok: true; bytes: Uint8Array } | { ok: false };

/**
 * Reads a request body of at most `maxBytes`: stops (and cancels the stream) as soon as more arrives, so a
 * huge or endless body never sits in memory beyond the cap. A null body reads as empty.
 */
export async function readCappedBody(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
): Promise<CappedBody> {
  if (!body) return { ok: true, bytes: new Uint8Array() };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      return { ok: false };
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { ok: true, bytes };
}
