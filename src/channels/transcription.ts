import * as z from 'zod';

/**
 * `channels.transcription`: where voice messages are turned into text when the platform gives no
 * transcript — any OpenAI-compatible `/audio/transcriptions` endpoint (OpenAI, Groq, a local whisper.cpp or
 * faster-whisper server).
 *
 * ```yaml
 * channels:
 *   transcription:
 *     base_url: https://api.openai.com/v1
 *     api_key: ${OPENAI_API_KEY}
 *     model: whisper-1
 * ```
 */
export const transcriptionSchema = z.strictObject({
  base_url: z
    .string()
    .trim()
    .refine(
      (text) => /^https?:\/\//.test(text) && URL.canParse(text),
      'an http(s) URL such as https://api.openai.com/v1',
    ),
  api_key: z.string().min(1).optional(),
  model: z.string().trim().min(1).default('whisper-1'),
});

export interface TranscriptionConfig {
  readonly baseUrl: string;
  /** Secret: the redactor knows it. */
  readonly apiKey?: string;
  readonly model: string;
}

export function toTranscriptionConfig(section: z.output<typeof transcriptionSchema>): TranscriptionConfig {
  return {
    baseUrl: section.base_url.replace(/\/+$/, ''),
    ...(section.api_key ? { apiKey: section.api_key } : {}),
    model: section.model,
  };
}

/** Audio in, words out; rejects with the endpoint's error. */
export type Transcribe = (audio: Uint8Array, signal?: AbortSignal) => Promise<string>;

/**
 * A transcriber for `config`: one `doGenerate` call of the AI SDK's OpenAI transcription model pointed at
 * `base_url` (loaded on first use; no SDK retries — a voice note that fails says so in the chat).
 */
export function createTranscriber(config: TranscriptionConfig): Transcribe {
  return async (audio, signal) => {
    const { createOpenAI } = await import('@ai-sdk/openai');
    const provider = createOpenAI({ baseURL: config.baseUrl, apiKey: config.apiKey ?? 'not-needed' });
    const result = await provider.transcription(config.model).doGenerate({
      audio,
      mediaType: audioType(audio),
      ...(signal ? { abortSignal: signal } : {}),
    });
    return result.text.trim();
  };
}

/**
 * The audio type of `bytes` by its signature (the upload's file name carries it, and servers such as Whisper
 * pick the decoder by it): Ogg (Telegram, WhatsApp and Discord voice notes), WebM, MP4/M4A, MP3, WAV, FLAC;
 * anything else is sent as Ogg, the most common voice-note container.
 */
export function audioType(bytes: Uint8Array): string {
  const head = Buffer.from(bytes.subarray(0, 12));
  const text = (from: number, to: number) => head.subarray(from, to).toString('latin1');
  if (text(0, 4) === 'OggS') return 'audio/ogg';
  if (head.length >= 4 && head.readUInt32BE(0) === 0x1a45dfa3) return 'audio/webm';
  if (text(4, 8) === 'ftyp') return 'audio/mp4';
  if (text(0, 3) === 'ID3' || (head[0] === 0xff && ((head[1] ?? 0) & 0xe0) === 0xe0)) return 'audio/mpeg';
  if (text(0, 4) === 'RIFF' && text(8, 12) === 'WAVE') return 'audio/wav';
  if (text(0, 4) === 'fLaC') return 'audio/flac';
  return 'audio/ogg';
}
