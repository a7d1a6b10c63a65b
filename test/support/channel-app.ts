import { createApp, type WrenApp } from '../../src/app/create-app.js';
import type { AppOptions } from '../../src/app/wren-app.js';
import type { ModelRequest } from '../../src/llm/types.js';
import type { ScriptedModel } from './scripted-model.js';

/**
 * A Wren app running the chat platforms of `home`'s config.yaml (as `wren start` does) with a scripted model,
 * no local-model probing and a bare environment. `close` is idempotent and is also pushed onto `cleanups`.
 */
export async function startChannelApp(
  options: { home: string; model: ScriptedModel; cleanups: Array<() => Promise<void>> } & Partial<
    Pick<AppOptions, 'platformDrivers' | 'scheduler'>
  > & { env?: Record<string, string> },
): Promise<{ app: WrenApp; close: () => Promise<void> }> {
  const app = await createApp({
    home: options.home,
    model: options.model,
    probeLocalModels: false,
    channels: true,
    ...(options.platformDrivers ? { platformDrivers: options.platformDrivers } : {}),
    ...(options.scheduler ? { scheduler: options.scheduler } : {}),
    env: { PATH: process.env['PATH'], ...options.env },
  });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await app.close(1000);
  };
  options.cleanups.push(close);
  return { app, close };
}

/** A model answer that repeats the newest line the sender wrote (the runtime's time note comes before it). */
export const echo = (request: ModelRequest) => {
  const last = request.messages.at(-1);
  const said = last?.role === 'user' && typeof last.content === 'string' ? last.content : '';
  return { text: `re: ${said.split('\n').at(-1)}` };
};

/** Everything the model was sent, joined: a stranger's words would appear inside it. */
export const askedText = (model: ScriptedModel) =>
  model.requests.map((request) => JSON.stringify(request.messages)).join('\n');
