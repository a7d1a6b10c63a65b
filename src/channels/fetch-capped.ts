/** A download refused for its size: before any byte was read when the size was declared, else mid-way. */
export class FileTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`the file is over the ${Math.round(maxBytes / (1024 * 1024))} MB size limit`);
    this.name = 'FileTooLargeError';
  }
}

/** How long one file download may take, start to end. */
const DOWNLOAD_DEADLINE_MS = 120_000;

/**
 * Reads at most `maxBytes` from `chunks`, then stops reading.
 * @throws FileTooLargeError as soon as more than `maxBytes` arrived.
 */
export async function readCapped(chunks: AsyncIterable<Uint8Array>, maxBytes: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let total = 0;
  for await (const chunk of chunks) {
    total += chunk.length;
    if (total > maxBytes) throw new FileTooLargeError(maxBytes);
    parts.push(Buffer.from(chunk));
  }
  return Buffer.concat(parts);
}

/**
 * GETs `url` and returns its body, never reading more than `maxBytes` of it: a declared `Content-Length`
 * over the cap is refused before the body is read, and an undeclared body is cut off at the cap. The
 * request is aborted after two minutes (or by `init.signal`).
 * @throws FileTooLargeError over the cap; Error for an answer other than 2xx.
 */
export async function fetchCapped(url: string, maxBytes: number, init: RequestInit = {}): Promise<Buffer> {
  const deadline = AbortSignal.timeout(DOWNLOAD_DEADLINE_MS);
  const signal = init.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
  const response = await fetch(url, { ...init, signal });
  try {
    if (!response.ok) throw new Error(`file download answered ${response.status}`);
    if (Number(response.headers.get('content-length') ?? 0) > maxBytes) throw new FileTooLargeError(maxBytes);
    if (!response.body) return Buffer.alloc(0);
    return await readCapped(response.body, maxBytes);
  } finally {
    // Whatever was not read is not wanted: close the connection's body instead of draining it.
    await response.body?.cancel().catch(() => {});
  }
}
