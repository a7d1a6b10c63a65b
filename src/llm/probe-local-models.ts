import { createDeadline } from '../util/create-deadline.js';
import { modelListIds } from './model-list-ids.js';

/** A local server to look for. */
export interface ProbeTarget {
  /** Preset name to suggest when it answers (`ollama`, `lmstudio`, `llamacpp`, `vllm`). */
  preset: string;
  /** OpenAI-compatible base URL to put in config, e.g. `http://127.0.0.1:11434/v1`. */
  baseUrl: string;
  /** `ollama` asks `GET <origin>/api/tags`; `openai` asks `GET <baseUrl>/models`. */
  kind: 'ollama' | 'openai';
}

/** A local server that answered, with the model ids it offers. */
export interface LocalModelServer {
  preset: string;
  baseUrl: string;
  models: string[];
}

export interface ProbeOptions {
  /** Defaults to Ollama :11434, LM Studio :1234, llama.cpp :8080 and vLLM :8000 on 127.0.0.1. */
  targets?: ProbeTarget[];
  /** Per-target deadline; default 800 ms. */
  timeoutMs?: number;
  fetch?: typeof globalThis.fetch;
}

export const DEFAULT_PROBE_TARGETS: readonly ProbeTarget[] = Object.freeze([
  { preset: 'ollama', baseUrl: 'http://127.0.0.1:11434/v1', kind: 'ollama' },
  { preset: 'lmstudio', baseUrl: 'http://127.0.0.1:1234/v1', kind: 'openai' },
  { preset: 'llamacpp', baseUrl: 'http://127.0.0.1:8080/v1', kind: 'openai' },
  { preset: 'vllm', baseUrl: 'http://127.0.0.1:8000/v1', kind: 'openai' },
]);

/**
 * Looks for local model servers, all targets in parallel, each with a short deadline. Resolves with the
 * servers that answered with a model list, in target order; never rejects (unreachable, slow or odd servers
 * are left out, and an aborted `signal` just ends the probes early).
 */
export async function probeLocalModels(
  options: ProbeOptions = {},
  signal?: AbortSignal,
): Promise<LocalModelServer[]> {
  const targets = options.targets ?? DEFAULT_PROBE_TARGETS;
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const results = await Promise.all(
    targets.map((target) => probeTarget(target, fetchImpl, options.timeoutMs ?? 800, signal)),
  );
  return results.filter((server): server is LocalModelServer => server !== undefined);
}

async function probeTarget(
  target: ProbeTarget,
  fetchImpl: typeof globalThis.fetch,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<LocalModelServer | undefined> {
  const deadline = createDeadline(timeoutMs, signal);
  try {
    const base = target.baseUrl.replace(/\/+$/, '');
    const url = target.kind === 'ollama' ? `${base.replace(/\/v1$/, '')}/api/tags` : `${base}/models`;
    const response = await fetchImpl(url, {
      signal: deadline.signal,
      headers: { accept: 'application/json' },
    });
    if (!response.ok) {
      await response.body?.cancel();
      return undefined;
    }
    const models = modelListIds(await response.json());
    return models ? { preset: target.preset, baseUrl: base, models } : undefined;
  } catch {
    return undefined;
  } finally {
    deadline.dispose();
  }
}
