import { performance } from 'node:perf_hooks';

export interface OpenAiOverhead {
  /** p50 of a turn through `/v1/chat/completions` minus p50 of the same turn through `/api/chat`, in ms. */
  p50: number;
  apiChatP50: number;
  openAiP50: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function timed(url: string, token: string, body: unknown): Promise<number> {
  const started = performance.now();
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return performance.now() - started;
}

/**
 * What the OpenAI-compatible endpoint adds to a turn: the same message through `POST /api/chat` and through
 * `POST /v1/chat/completions` (JSON, not streamed, as the other), alternating which goes first, each in its own
 * 20 rotating sessions so both histories grow alike. The first 20 rounds warm up and are not counted.
 */
export async function measureOpenAiOverhead(options: {
  url: string;
  token: string;
  turns: number;
}): Promise<OpenAiOverhead> {
  const api: number[] = [];
  const openai: number[] = [];
  for (let i = 0; i < options.turns + 20; i++) {
    const message = `message ${i}`;
    const viaApi = () =>
      timed(`${options.url}/api/chat`, options.token, { message, session: `api-${i % 20}` });
    const viaOpenAi = () =>
      timed(`${options.url}/v1/chat/completions`, options.token, {
        model: 'wren',
        user: `v1-${i % 20}`,
        messages: [{ role: 'user', content: message }],
      });
    let apiMs: number;
    let openAiMs: number;
    if (i % 2 === 0) {
      apiMs = await viaApi();
      openAiMs = await viaOpenAi();
    } else {
      openAiMs = await viaOpenAi();
      apiMs = await viaApi();
    }
    if (i >= 20) {
      api.push(apiMs);
      openai.push(openAiMs);
    }
  }
  const apiChatP50 = median(api);
  const openAiP50 = median(openai);
  return { p50: openAiP50 - apiChatP50, apiChatP50, openAiP50 };
}
