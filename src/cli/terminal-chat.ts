import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { styleText } from 'node:util';
import type { MessageBus } from '../bus/message-bus.js';
import type { AgentEvent } from '../bus/messages.js';

export interface TerminalChatOptions {
  bus: MessageBus;
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** Color and the prompt only when talking to a person. */
  tty: boolean;
  /** Continue this session instead of the terminal's active one. */
  sessionId?: string;
  banner?: string;
}

const CHAT_ID = 'terminal';

/**
 * The interactive terminal chat: one line in, a streamed reply out, tool progress shown as it happens.
 * Lines typed while a reply is running are queued by the runtime; `/stop` or Ctrl+C cancels the running
 * reply; a second Ctrl+C (or Ctrl+D, `/exit`) leaves. Resolves when the chat ends.
 */
export function runTerminalChat(options: TerminalChatOptions): Promise<void> {
  const { bus, output, tty } = options;
  const paint = (style: Parameters<typeof styleText>[0], text: string) =>
    tty ? styleText(style, text) : text;
  const write = (text: string) => output.write(text);
  const rl = createInterface({ input: options.input, output: tty ? output : undefined, terminal: tty });
  const prompt = () => {
    if (!tty) return;
    rl.setPrompt(paint('cyan', 'you › '));
    rl.prompt();
  };
  /** Pinned by --session; `/new` moves the pin to the fresh session. */
  let pinned = options.sessionId;
  let pending = 0;
  let midLine = false;
  let closing = false;

  const onEvent = (event: AgentEvent) => {
    if (event.type === 'turn-start') {
      if (tty) write(paint('green', 'wren › '));
      midLine = tty;
    } else if (event.type === 'text-delta') {
      write(event.text);
      midLine = !event.text.endsWith('\n');
    } else if (event.type === 'tool-call-start') {
      write(`${midLine ? '\n' : ''}${paint('dim', `  · ${event.hint}`)}\n`);
      midLine = false;
    } else if (event.type === 'tool-call-end' && event.isError) {
      write(`${paint('yellow', `  ! ${event.name}: ${event.preview.split('\n')[0]}`)}\n`);
    }
  };

  const send = (text: string) => {
    pending++;
    const streamed = { text: false };
    void bus
      .request(
        {
          id: randomUUID(),
          channel: 'cli',
          senderId: 'owner',
          fromOwner: true,
          chatId: CHAT_ID,
          text,
          interactive: tty,
          ...(pinned ? { sessionId: pinned } : {}),
        },
        (event) => {
          if (event.type === 'text-delta') streamed.text = true;
          onEvent(event);
        },
      )
      .then((outbound) => {
        if (text.toLowerCase() === '/new' && pinned && outbound.sessionId) pinned = outbound.sessionId;
        if (outbound.kind === 'error') write(`${midLine ? '\n' : ''}${paint('red', `✗ ${outbound.text}`)}\n`);
        else if (!streamed.text) write(`${midLine ? '\n' : ''}${paint('dim', outbound.text)}\n`);
        else
          write(
            `${midLine ? '\n' : ''}${outbound.notice ? `${paint('dim', `(${outbound.notice})`)}\n` : ''}`,
          );
        midLine = false;
        pending--;
        if (pending > 0) return;
        if (closing) finish();
        else prompt();
      });
  };

  let finish = () => {};
  return new Promise((resolve) => {
    finish = () => {
      if (tty) write('\n');
      resolve();
    };
    if (options.banner && tty) write(`${paint('dim', options.banner)}\n`);
    prompt();
    rl.on('line', (line) => {
      const text = line.trim();
      if (!text) return prompt();
      if (text === '/exit' || text === '/quit') return rl.close();
      send(text);
    });
    rl.on('SIGINT', () => {
      if (pending > 0) {
        send('/stop');
        return;
      }
      rl.close();
    });
    rl.on('close', () => {
      closing = true;
      if (pending === 0) finish();
    });
  });
}
