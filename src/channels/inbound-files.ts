import type { ImagePart } from '../llm/types.js';
import { FileTooLargeError } from './fetch-capped.js';
import { imageType } from './image-type.js';
import { saveInboxFile } from './inbox-file.js';
import type { Transcribe } from './transcription.js';

/**
 * One file that came with a platform message, described from what the platform declared. Its bytes are
 * fetched through `download` only after `PlatformChannel` admitted the sender (who they are, whether they
 * may talk, their rate) and checked the declared size against the cap, so no adapter can fetch a
 * stranger's file or an oversized one.
 */
export interface PlatformFile {
  /** `image`: passed to the model (at most 4, else saved); `voice`: transcribed; `file`: saved to the inbox. */
  kind: 'image' | 'voice' | 'file';
  /** The sender's name for it (untrusted: made safe before it names anything). */
  name: string;
  /** Bytes, as the platform declares them; undefined when it declares nothing (then capped while reading). */
  size?: number;
  /** For voice: what the model is told it was, e.g. "a 3 s voice message". */
  describe?: string;
  /** Fetches the bytes, reading at most `maxBytes` (throwing FileTooLargeError beyond). */
  download(maxBytes: number): Promise<Uint8Array>;
}

/** At most this many files are taken from one message; the rest are named in a note. */
export const MAX_FILES_PER_MESSAGE = 10;
const MAX_IMAGES = 4;

export interface TakeInOptions {
  maxBytes: number;
  /** The workspace whose `inbox/` saved files go to; without one, files are only described. */
  workspace: string | undefined;
  transcribe: Transcribe | undefined;
  onError: (error: unknown) => void;
}

/** The notes for the model and the images a message's files became. */
export interface TakenFiles {
  notes: string[];
  media: ImagePart[];
  /** Names of files refused for their size: declared over the cap (never fetched), or found so mid-way. */
  refused: string[];
}

/**
 * Downloads and places the files of an admitted message: a file whose declared size is over the cap is
 * never fetched; images go to the model, voice through the transcriber (downloaded only when one is
 * configured), everything else into `workspace/inbox/`. A file that fails becomes a note; never throws.
 */
export async function takeInFiles(
  files: readonly PlatformFile[],
  options: TakeInOptions,
): Promise<TakenFiles> {
  const taken: TakenFiles = { notes: [], media: [], refused: [] };
  for (const file of files.slice(0, MAX_FILES_PER_MESSAGE)) {
    if (file.size !== undefined && file.size > options.maxBytes) {
      taken.refused.push(file.name);
      taken.notes.push(`[file ${file.name} (${file.size} bytes) is over the size limit; not downloaded]`);
      continue;
    }
    try {
      await takeInFile(file, options, taken);
    } catch (error) {
      if (error instanceof FileTooLargeError) {
        taken.refused.push(file.name);
        taken.notes.push(`[file ${file.name} is over the size limit; not saved]`);
      } else {
        options.onError(error);
        taken.notes.push(`[a file (${file.name}) came with this message, but it could not be downloaded]`);
      }
    }
  }
  const left = files.length - MAX_FILES_PER_MESSAGE;
  if (left > 0)
    taken.notes.push(`[${left} more files came with this message; only ${MAX_FILES_PER_MESSAGE} are taken]`);
  return taken;
}

/** What the sender is told about files refused for their size (their names, shortened). */
export function refusedFilesNotice(names: readonly string[], maxBytes: number): string {
  const list = names.map((name) => `"${name.slice(0, 80)}"`).join(', ');
  const one = names.length === 1;
  return `${list} ${one ? 'is' : 'are'} over the ${sizeLabel(maxBytes)} limit for files, so Wren did not download ${one ? 'it' : 'them'}.`;
}

/** `20 MB`, or `500 KB` below a megabyte. */
function sizeLabel(bytes: number): string {
  const mb = 1024 * 1024;
  return bytes >= mb ? `${Math.round(bytes / mb)} MB` : `${Math.ceil(bytes / 1024)} KB`;
}

async function takeInFile(file: PlatformFile, options: TakeInOptions, taken: TakenFiles): Promise<void> {
  if (file.kind === 'voice') {
    taken.notes.push(
      await voiceText(file.describe ?? `a voice message (${file.name})`, options, () =>
        file.download(options.maxBytes),
      ),
    );
    return;
  }
  const bytes = Buffer.from(await file.download(options.maxBytes));
  if (bytes.length > options.maxBytes) throw new FileTooLargeError(options.maxBytes);
  // The type comes from the bytes, not from what the sender or platform called them.
  const mediaType = file.kind === 'image' ? imageType(bytes) : undefined;
  if (mediaType && taken.media.length < MAX_IMAGES) {
    taken.media.push({ type: 'image', mediaType, data: bytes.toString('base64') });
    return;
  }
  if (!options.workspace) {
    taken.notes.push(`[file ${file.name} (${bytes.length} bytes) came, but there is no inbox to save it in]`);
    return;
  }
  const saved = await saveInboxFile(options.workspace, file.name, bytes);
  taken.notes.push(`[file saved to ${saved} (${bytes.length} bytes)]`);
}

/**
 * The words of a voice message: the configured transcription endpoint's, or a note saying there is none
 * (or that it failed) so the model knows a voice message came. Downloads only when there is a transcriber.
 */
export async function voiceText(
  what: string,
  options: Pick<TakeInOptions, 'transcribe' | 'onError'>,
  download: () => Promise<Uint8Array>,
): Promise<string> {
  const transcribe = options.transcribe;
  if (!transcribe)
    return `[${what}; no transcription is configured (channels.transcription), so its words are unknown]`;
  try {
    const words = await transcribe(await download());
    return words ? `[${what}, transcribed] ${words}` : `[${what} with no words in it]`;
  } catch (error) {
    if (error instanceof FileTooLargeError) return `[${what} over the size limit]`;
    options.onError(error);
    return `[${what}; transcribing it failed]`;
  }
}
