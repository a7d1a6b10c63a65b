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

/** A transcriber for `config` (the AI SDK's OpenAI transcription model, pointed at `base_url`), loaded on use. */
export function createTranscriber(config: TranscriptionConfig): Transcribe {
  return async (audio, signal) => {
    const [{ experimental_transcribe: transcribe }, { createOpenAI }] = await Promise.all([
      import('ai'),
      import('@ai-sdk/openai'),
    ]);
    const provider = createOpenAI({ baseURL: config.baseUrl, apiKey: config.apiKey ?? 'not-needed' });
    const result = await transcribe({
      model: provider.transcription(config.model),
      audio,
      maxRetries: 1,
      ...(signal ? { abortSignal: signal } : {}),
    });
    return result.text.trim();
  };
}
