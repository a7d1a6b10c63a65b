import { ToolError } from '../../agent/tool.js';

/** PDFs larger than this are not parsed (pdf.js holds the whole document in memory). */
export const PDF_CAP_BYTES = 50 * 1024 * 1024;

/** Whether a file starts like a PDF. */
export function isPdf(head: Buffer): boolean {
  return head.subarray(0, 5).toString('latin1') === '%PDF-';
}

/**
 * The text of a PDF, page by page (`[page N]` headers), with no worker thread. pdf.js comes from unpdf's
 * serverless build (one 1.6 MB module, no native canvas): text extraction never renders, so pdfjs-dist's
 * 37 MB package and its 32 MB optional `@napi-rs/canvas` bought nothing here.
 * @throws ToolError when the PDF is encrypted or damaged.
 */
export async function pdfText(data: Buffer, signal?: AbortSignal): Promise<{ text: string; pages: number }> {
  const pdfjs = await import('unpdf/pdfjs');
  const task = pdfjs.getDocument({
    data: new Uint8Array(data),
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    verbosity: 0,
  });
  const onAbort = () => void task.destroy();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const document = await task.promise;
    const pages: string[] = [];
    for (let number = 1; number <= document.numPages; number++) {
      signal?.throwIfAborted();
      const page = await document.getPage(number);
      const content = await page.getTextContent();
      const text = content.items
        .map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : '') : ''))
        .join('')
        .trim();
      pages.push(`[page ${number}]\n${text}`);
      page.cleanup();
    }
    return { text: pages.join('\n\n'), pages: document.numPages };
  } catch (error) {
    signal?.throwIfAborted();
    const reason = error instanceof Error ? error.message : String(error);
    throw new ToolError(`The PDF could not be read as text (${reason}); it may be encrypted or damaged.`);
  } finally {
    signal?.removeEventListener('abort', onAbort);
    await task.destroy();
  }
}
