import type { AgentEvent } from '../bus/messages.js';

/** How much of a turn's tool work a chat shows: nothing, one line per tool, or lines with results. */
export type ProgressMode = 'off' | 'hints' | 'full';

export interface TurnProgressOptions {
  mode: () => ProgressMode;
  typing: (chatId: string) => Promise<void>;
  /**
   * Posts (no handle) or edits (handle) the turn's status message; returns the handle to edit next.
   * `replyTo` is the inbound message whose turn it is (WeCom streams progress on that message's frame).
   */
  post: (
    chatId: string,
    text: string,
    handle: string | undefined,
    replyTo: string,
  ) => Promise<string | undefined>;
  onError: (error: unknown) => void;
  /** How often "typing…" is renewed while a turn runs (platforms show it ~5 s). */
  typingEveryMs?: number;
}

interface Turn {
  replyTo: string;
  chatId: string;
  timer: NodeJS.Timeout;
  lines: string[];
  calls: Map<string, number>;
  handle: string | undefined;
  /** Edits run one at a time; while one runs, later changes collapse into one more. */
  busy: boolean;
  dirty: boolean;
}

/**
 * Shows a running turn in a chat: "typing…" until it ends, and its tool calls as one status message that
 * is edited as calls start and finish (on platforms that can edit), so a long task shows progress without
 * flooding the chat.
 */
export class TurnProgress {
  private readonly turns = new Map<string, Turn>();

  constructor(private readonly options: TurnProgressOptions) {}

  onEvent(event: AgentEvent): void {
    if (event.type === 'turn-start') {
      this.begin(event.replyTo, event.chatId);
      return;
    }
    const turn = this.turns.get(event.replyTo);
    if (!turn) return;
    if (event.type === 'turn-end') {
      clearInterval(turn.timer);
      this.turns.delete(event.replyTo);
      return;
    }
    const mode = this.options.mode();
    if (mode === 'off') return;
    if (event.type === 'tool-call-start') {
      turn.calls.set(event.callId, turn.lines.length);
      turn.lines.push(`⏳ ${oneLine(event.hint, 200)}`);
    } else if (event.type === 'tool-call-end') {
      const index = turn.calls.get(event.callId);
      if (index === undefined) return;
      const line = turn.lines[index]!.slice(2);
      const result = mode === 'full' && event.preview ? ` → ${oneLine(event.preview, 200)}` : '';
      turn.lines[index] = `${event.isError ? '✗' : '✓'} ${line}${result}`;
    } else {
      return;
    }
    this.flush(turn);
  }

  /** Stops every typing timer (the channel stopped). */
  close(): void {
    for (const turn of this.turns.values()) clearInterval(turn.timer);
    this.turns.clear();
  }

  private begin(replyTo: string, chatId: string): void {
    const typing = () => this.options.typing(chatId).catch(this.options.onError);
    void typing();
    const timer = setInterval(typing, this.options.typingEveryMs ?? 4500);
    timer.unref();
    this.turns.set(replyTo, {
      replyTo,
      chatId,
      timer,
      lines: [],
      calls: new Map(),
      handle: undefined,
      busy: false,
      dirty: false,
    });
  }

  private flush(turn: Turn): void {
    if (turn.busy) {
      turn.dirty = true;
      return;
    }
    turn.busy = true;
    turn.dirty = false;
    this.options
      .post(turn.chatId, turn.lines.join('\n'), turn.handle, turn.replyTo)
      .then((handle) => {
        turn.handle = handle ?? turn.handle;
      })
      .catch(this.options.onError)
      .finally(() => {
        turn.busy = false;
        if (turn.dirty) this.flush(turn);
      });
  }
}

function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
