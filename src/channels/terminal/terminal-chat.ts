import { clearLine, createInterface, cursorTo } from 'node:readline';
import { styleText } from 'node:util';

import type {
  AgentEvent,
  ApprovalChoice,
  ApprovalEvent,
  ApprovalRequest,
  OutboundMessage,
} from '../../bus/messages.js';
import { describeResolution } from '../approval-text.js';
import type { TerminalChannel } from './terminal-channel.js';

export interface TerminalChatOptions {
  /** The terminal channel on the in-process bus or a running gateway's; asks approvals when interactive. */
  channel: TerminalChannel;
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** Color and the prompt only when talking to a person. */
  tty: boolean;
  /** Continue this session instead of the terminal's active one. */
  sessionId?: string;
  banner?: string;
}

const ANSWERS: Record<string, ApprovalChoice> = {
  o: 'once',
  once: 'once',
  y: 'once',
  yes: 'once',
  s: 'session',
  session: 'session',
  a: 'always',
  always: 'always',
  d: 'deny',
  deny: 'deny',
  n: 'deny',
  no: 'deny',
};

const CHOICE_LABEL: Record<ApprovalChoice, string> = {
  once: '[o]nce',
  session: 'for this [s]ession',
  always: '[a]lways',
  deny: '[d]eny',
};

/** The inline question for one held tool call (arguments arrive with secrets already redacted). */
export function describeApproval(request: ApprovalRequest): string {
  // Shown in full (the gate already shortened anything huge to head + tail and then offers only "once"):
  // a harmful tail must never hide behind an ellipsis.
  const args = request.args;
  const choices = request.choices.map((choice) =>
    choice === 'always' && request.target
      ? `[a]lways (${request.tool}: ${request.target})`
      : CHOICE_LABEL[choice],
  );
  return [
    `  ? approval needed: ${request.tool} ${args}`,
    ...(request.facts ?? []).map((fact) => `    ${fact}`),
    `    why: ${request.reason}`,
    `    answer ${choices.join(', ')}`,
  ].join('\n');
}

/**
 * The interactive terminal chat: one line in, a streamed reply out, tool progress shown as it happens.
 * Lines typed while a reply is running are queued by the runtime; `/stop` or Ctrl+C cancels the running
 * reply; a second Ctrl+C (or Ctrl+D, `/exit`) leaves. Resolves when the chat ends.
 */
export function runTerminalChat(options: TerminalChatOptions): Promise<void> {
  const { channel, output, tty } = options;
  const paint = (style: Parameters<typeof styleText>[0], text: string) =>
    tty ? styleText(style, text) : text;
  const write = (text: string) => output.write(text);
  const rl = createInterface({ input: options.input, output: tty ? output : undefined, terminal: tty });
  /** A prompt (`you ›`, `approve ›`) is on the screen's last line, maybe with half-typed input after it. */
  let atPrompt = false;
  const prompt = () => {
    if (!tty) return;
    rl.setPrompt(paint('cyan', 'you › '));
    rl.prompt(true);
    atPrompt = true;
  };
  /**
   * Writes whole lines of something that arrived on its own (a reminder, a message, an approval): on a line of
   * its own, never after the prompt — a shown prompt is cleared first and drawn again below, with what the
   * owner had typed so far — or after a reply's half-written line.
   */
  const writeLines = (text: string) => {
    if (atPrompt) {
      cursorTo(output, 0);
      clearLine(output, 0);
      write(text);
      rl.prompt(true);
      return;
    }
    write(`${midLine ? '\n' : ''}${text}`);
    midLine = false;
  };
  /** Pinned by --session; `/new` moves the pin to the fresh session. */
  let pinned = options.sessionId;
  let pending = 0;
  let midLine = false;
  let closing = false;
  /** Held tool calls of this terminal, oldest first; the head is the question on screen. */
  const approvals: ApprovalRequest[] = [];
  const answeredHere = new Set<string>();

  const askNext = () => {
    const head = approvals[0];
    if (!head) return;
    if (tty) rl.setPrompt(paint('yellow', 'approve › '));
    const shown = atPrompt;
    writeLines(`${paint('yellow', describeApproval(head))}\n`);
    if (tty && !shown) {
      rl.prompt(true);
      atPrompt = true;
    }
  };

  const onApproval = (event: ApprovalEvent) => {
    if (event.type === 'approval-requested') {
      approvals.push(event.request);
      if (approvals.length === 1) askNext();
      return;
    }
    const index = approvals.findIndex((request) => request.id === event.id);
    if (index < 0) return;
    approvals.splice(index, 1);
    if (!answeredHere.delete(event.id ?? '')) {
      const how = describeResolution(event);
      writeLines(`${paint('dim', `  · approval for ${event.tool}: ${how}`)}\n`);
    }
    if (index === 0) askNext();
  };

  const answer = (text: string) => {
    const head = approvals[0]!;
    const choice = ANSWERS[text.toLowerCase()];
    if (!choice || !head.choices.includes(choice)) {
      write(
        `${paint('yellow', `    please answer ${head.choices.map((item) => CHOICE_LABEL[item]).join(', ')}`)}\n`,
      );
      if (tty) {
        rl.prompt(true);
        atPrompt = true;
      }
      return;
    }
    answeredHere.add(head.id);
    void channel.answer(head.id, choice).then((result) => {
      if (!result.ok) {
        answeredHere.delete(head.id);
        write(`${paint('red', `    ${result.message}`)}\n`);
      } else {
        write(`${paint('dim', `  · ${choice === 'deny' ? 'denied' : `approved (${choice})`}`)}\n`);
      }
    });
  };

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

  /** Messages Wren sends on its own to this terminal (`message`, `send_file`, subagent reports). */
  const onOutbound = (outbound: OutboundMessage) => {
    const files = (outbound.attachments ?? []).map(
      (file) => `\n  📎 ${file.name} (${file.size} bytes): ${file.path}`,
    );
    const shown = atPrompt;
    writeLines(`${paint('green', 'wren › ')}${outbound.text}${files.join('')}\n`);
    if (!shown && pending === 0 && approvals.length === 0 && !closing) prompt();
  };

  const send = (text: string) => {
    pending++;
    const streamed = { text: false };
    void channel
      .say(text, {
        ...(pinned ? { sessionId: pinned } : {}),
        onEvent: (event) => {
          if (event.type === 'text-delta') streamed.text = true;
          onEvent(event);
        },
      })
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
        else if (approvals.length === 0) prompt();
      });
  };

  let finish = () => {};
  void channel.start(undefined, { onMessage: onOutbound, onApproval });
  return new Promise((resolve) => {
    finish = () => {
      void channel.stop();
      if (tty) write('\n');
      resolve();
    };
    if (options.banner && tty) write(`${paint('dim', options.banner)}\n`);
    prompt();
    rl.on('line', (line) => {
      atPrompt = false;
      const text = line.trim();
      if (approvals.length > 0 && text && !text.startsWith('/')) return answer(text);
      if (!text) return approvals.length > 0 ? askNext() : prompt();
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
