import type { AgentEvent, OutboundMessage } from '../bus/messages.js';
import type { HttpChannel } from '../channels/http/http-channel.js';
import type { ChatCompletionTurn } from './openai-chat-request.js';

/** `gateway.openai_compat.approvals`: deny calls needing approval at once, or wait for the owner's answer. */
export type OpenAiApprovalMode = 'deny' | 'wait';

/** One turn asked through the OpenAI-compatible endpoint, as its answer arrives. */
export interface OpenAiTurn {
  /** The turn's answer; rejects when the client went away (the turn is then cancelled). */
  reply: Promise<OutboundMessage>;
  /** Resolves once the reply shows progress (its first text or tool call) or is settled. */
  moving: Promise<void>;
  /**
   * Hands `push` the reply's text not taken yet, then each piece as it arrives, until the returned function is
   * called. Text the model writes after a tool call starts a new paragraph.
   */
  follow(push: (text: string) => void): () => void;
  /** Whether any text has been handed out. */
  readonly streamed: boolean;
  /** The answer once it came, `gone` when the client went away first; undefined while the turn runs. */
  readonly outcome: OutboundMessage | 'gone' | undefined;
  /** Tools the gate denied during this turn because they needed an approval nobody could give (`deny`). */
  denied(): string[];
}

/** How `reply` ended, once it has (`'gone'` when it failed); `settled` runs when it ends, either way. */
function trackOutcome(
  reply: Promise<OutboundMessage>,
  settled: () => void,
): () => OutboundMessage | 'gone' | undefined {
  let outcome: OutboundMessage | 'gone' | undefined;
  void reply
    .then(
      (outbound) => {
        outcome = outbound;
      },
      () => {
        outcome = 'gone';
      },
    )
    .finally(settled);
  return () => outcome;
}

/**
 * Asks `channel` for one owner turn. With `deny`, the turn is not interactive (as `wren chat -m`): calls that
 * need approval are denied at once and collected for {@link deniedNote}; with `wait`, they wait for an answer
 * from the web app (or `POST /api/approvals/:id`) up to the gate's timeout.
 */
export function startOpenAiTurn(options: {
  channel: HttpChannel;
  turn: ChatCompletionTurn;
  approvals: OpenAiApprovalMode;
  signal: AbortSignal;
}): OpenAiTurn {
  const { channel, turn } = options;
  const pending: string[] = [];
  let push: ((text: string) => void) | undefined;
  let streamed = false;
  let sawText = false;
  let gap = false;
  let running = false;
  let markMoving: () => void = () => {};
  const moving = new Promise<void>((resolve) => {
    markMoving = resolve;
  });
  const denied: string[] = [];
  // Approval events name the session, not the turn: only those between this turn's start and end are its own
  // (a session's turns run one at a time).
  const stopWatching = channel.watchApprovalsOf({ session: turn.session }, (event) => {
    if (running && event.type === 'approval-resolved' && event.outcome === 'unattended')
      denied.push(event.tool);
  });
  const onEvent = (event: AgentEvent) => {
    if (event.type === 'turn-start') running = true;
    else if (event.type === 'turn-end') running = false;
    else if (event.type === 'tool-call-start') {
      gap = sawText;
      markMoving();
    } else if (event.type === 'text-delta' && event.text !== '') {
      const text = gap ? `\n\n${event.text}` : event.text;
      gap = false;
      sawText = true;
      if (push) {
        streamed = true;
        push(text);
      } else if (turn.stream) pending.push(text);
      markMoving();
    }
  };
  const reply = channel.ask(
    {
      text: turn.text,
      session: turn.session,
      interactive: options.approvals === 'wait',
      ...(turn.images.length > 0 ? { media: turn.images } : {}),
    },
    onEvent,
    options.signal,
  ).reply;
  const outcome = trackOutcome(reply, () => {
    stopWatching();
    markMoving();
  });
  return {
    reply,
    moving,
    follow(listener) {
      for (const text of pending.splice(0)) {
        streamed = true;
        listener(text);
      }
      push = listener;
      return () => {
        push = undefined;
      };
    },
    get streamed() {
      return streamed;
    },
    get outcome() {
      return outcome();
    },
    denied: () => [...new Set(denied)],
  };
}

/** What the reply says about calls denied for want of an approval (empty when there were none). */
export function deniedNote(tools: string[]): string {
  if (tools.length === 0) return '';
  const names = tools.map((tool) => `\`${tool}\``).join(', ');
  return `\n\n(Wren did not run ${names}: ${tools.length === 1 ? 'the call needs' : 'those calls need'} your approval, which this client cannot give. Run it from the web app or \`wren chat\`, set gateway.openai_compat.approvals: wait to approve such calls in the web app while the request waits, or allow them with a gate rule in config.yaml.)`;
}
