import type { AgentEvent, ApprovalEvent, ApprovalRequest, OutboundMessage } from '../../bus/messages.js';
import type { TurnSegment } from '../../gateway/api-types.js';

/** How a turn of the API ended (or that it has not). `stopped`: cancelled (Stop, `/stop`, a client gone). */
export type TurnState = 'running' | 'done' | 'error' | 'stopped';

/** A part of a turn's reply, as the API shows it; tool hints and arguments are not redacted here (whoever shows a segment redacts it). */
export type { TurnSegment };

/** Everything a client needs to show a turn it was not watching from the start. */
export interface TurnSnapshot {
  /** The inbound message id of the turn. */
  id: string;
  session: string;
  state: TurnState;
  /** The owner's message that started the turn (its text; images are not kept). */
  message: string;
  startedAt: number;
  endedAt?: number;
  /** The reply so far, text and tool calls in the order they happened. */
  segments: TurnSegment[];
  /** Characters of streamed text dropped from the front to keep the buffer within its cap. */
  droppedChars: number;
  /** Tool calls dropped from the front (beyond the cap on tool calls kept). */
  droppedTools: number;
  /** Approval requests of this turn's session still waiting for an answer. */
  approvals: ApprovalRequest[];
  /** The final answer, once the turn ended with one (not when a client going away cancelled it). */
  result?: Pick<OutboundMessage, 'text' | 'kind' | 'usage' | 'notice'>;
}

/** What a watcher of one turn is told after its snapshot, in order. */
export type TurnChange =
  | { type: 'event'; event: AgentEvent }
  | { type: 'approval'; event: ApprovalEvent }
  | { type: 'end'; snapshot: TurnSnapshot };

export interface TurnRegistryOptions {
  now?: () => number;
  /** How long an ended turn stays readable (default 2 minutes). */
  keepMs?: number;
  /** Streamed text kept per turn; beyond it the oldest text is dropped (default 100,000 characters). */
  maxTextChars?: number;
  /** Tool calls kept per turn (default 64). */
  maxTools?: number;
  /** Approval requests kept per turn (default 16). */
  maxApprovals?: number;
  /** Turns kept at once; ended turns are forgotten oldest first to make room (default 64). */
  maxTurns?: number;
}

interface Turn {
  snapshot: TurnSnapshot;
  textChars: number;
  toolCount: number;
  watchers: Set<(change: TurnChange) => void>;
}

/**
 * The API's turns in flight, so a client that went away (a reloaded tab) can pick a turn up again: what
 * was streamed so far, the tool calls and the approvals it waits for, then the rest live. Memory is
 * bounded: text and tool calls per turn are capped, an ended turn is kept only `keepMs`, and at most
 * `maxTurns` are held (running turns are never dropped; the runtime bounds those). No timers: expired turns
 * are forgotten on the next call. Synchronous throughout, so a snapshot and its watch see no gap.
 */
export class TurnRegistry {
  private readonly turns = new Map<string, Turn>();
  private readonly now: () => number;
  private readonly keepMs: number;
  private readonly maxTextChars: number;
  private readonly maxTools: number;
  private readonly maxApprovals: number;
  private readonly maxTurns: number;

  constructor(options: TurnRegistryOptions = {}) {
    this.now = options.now ?? Date.now;
    this.keepMs = options.keepMs ?? 120_000;
    this.maxTextChars = options.maxTextChars ?? 100_000;
    this.maxTools = options.maxTools ?? 64;
    this.maxApprovals = options.maxApprovals ?? 16;
    this.maxTurns = options.maxTurns ?? 64;
  }

  /** A turn accepted for `session` (inbound id `id`). Starting an id twice is ignored. */
  begin(id: string, session: string, message: string): void {
    this.prune();
    if (this.turns.has(id)) return;
    this.turns.set(id, {
      snapshot: {
        id,
        session,
        state: 'running',
        message: message.slice(0, this.maxTextChars),
        startedAt: this.now(),
        segments: [],
        droppedChars: 0,
        droppedTools: 0,
        approvals: [],
      },
      textChars: 0,
      toolCount: 0,
      watchers: new Set(),
    });
    this.makeRoom();
  }

  /** A progress event of turn `id` (events of unknown or ended turns are ignored). */
  record(id: string, event: AgentEvent): void {
    const turn = this.running(id);
    if (!turn) return;
    if (event.type === 'text-delta') this.addText(turn, event.text);
    else if (event.type === 'tool-call-start') this.addTool(turn, event);
    else if (event.type === 'tool-call-end') {
      const call = turn.snapshot.segments.find((item) => item.type === 'tool' && item.id === event.callId);
      if (call?.type === 'tool')
        Object.assign(call, { running: false, isError: event.isError, preview: event.preview });
    }
    this.tell(turn, { type: 'event', event });
  }

  /** Approval traffic of any session: kept with that session's running turns and passed to their watchers. */
  approval(event: ApprovalEvent): void {
    const session = event.type === 'approval-requested' ? event.request.sessionId : event.sessionId;
    for (const turn of this.turns.values()) {
      const { snapshot } = turn;
      if (snapshot.session !== session || snapshot.state !== 'running') continue;
      if (event.type === 'approval-requested') {
        snapshot.approvals = [
          ...snapshot.approvals.filter((item) => item.id !== event.request.id),
          event.request,
        ];
        if (snapshot.approvals.length > this.maxApprovals) snapshot.approvals.shift();
      } else if (event.id) {
        snapshot.approvals = snapshot.approvals.filter((item) => item.id !== event.id);
      }
      this.tell(turn, { type: 'approval', event });
    }
  }

  /** Turn `id` ended: with its answer, or `stopped` without one (its client went away and cancelled it). */
  end(id: string, outcome: OutboundMessage | 'stopped'): void {
    const turn = this.running(id);
    if (!turn) return;
    const snapshot = turn.snapshot;
    snapshot.endedAt = this.now();
    snapshot.approvals = [];
    for (const segment of snapshot.segments) if (segment.type === 'tool') segment.running = false;
    if (outcome === 'stopped') snapshot.state = 'stopped';
    else {
      snapshot.state =
        outcome.kind === 'error' ? 'error' : outcome.stopReason === 'aborted' ? 'stopped' : 'done';
      snapshot.result = {
        text: outcome.text,
        kind: outcome.kind,
        usage: outcome.usage,
        ...(outcome.notice ? { notice: outcome.notice } : {}),
      };
    }
    const ended = this.copy(snapshot);
    for (const watcher of [...turn.watchers]) watcher({ type: 'end', snapshot: ended });
    turn.watchers.clear();
  }

  /** The inbound id of `session`'s running turn (the oldest, when several wait in its queue). */
  runningId(session: string): string | undefined {
    return this.pick(session, true)?.snapshot.id;
  }

  /** `session`'s turn: its running one (the oldest), else the newest that ended less than `keepMs` ago. */
  current(session: string): TurnSnapshot | undefined {
    const turn = this.pick(session);
    return turn ? this.copy(turn.snapshot) : undefined;
  }

  /**
   * The current turn of `session` and, while it runs, its changes from that very moment until it ends (the
   * last change is `end`). Undefined when the session has no turn to show.
   */
  watch(
    session: string,
    listener: (change: TurnChange) => void,
  ): { snapshot: TurnSnapshot; stop: () => void } | undefined {
    const turn = this.pick(session);
    if (!turn) return undefined;
    if (turn.snapshot.state === 'running') turn.watchers.add(listener);
    return { snapshot: this.copy(turn.snapshot), stop: () => turn.watchers.delete(listener) };
  }

  /** How many turns are held (for tests and status). */
  get size(): number {
    this.prune();
    return this.turns.size;
  }

  private running(id: string): Turn | undefined {
    const turn = this.turns.get(id);
    return turn?.snapshot.state === 'running' ? turn : undefined;
  }

  private pick(session: string, runningOnly = false): Turn | undefined {
    this.prune();
    let ended: Turn | undefined;
    for (const turn of this.turns.values()) {
      if (turn.snapshot.session !== session) continue;
      if (turn.snapshot.state === 'running') return turn;
      ended = turn;
    }
    return runningOnly ? undefined : ended;
  }

  private addText(turn: Turn, text: string): void {
    const segments = turn.snapshot.segments;
    const last = segments.at(-1);
    if (last?.type === 'text') last.text += text;
    else segments.push({ type: 'text', text });
    turn.textChars += text.length;
    let excess = turn.textChars - this.maxTextChars;
    // Keep the newest text: a client that re-attaches continues from what it is shown.
    for (let index = 0; excess > 0 && index < segments.length; ) {
      const segment = segments[index]!;
      if (segment.type !== 'text') {
        index++;
        continue;
      }
      const cut = Math.min(excess, segment.text.length);
      segment.text = segment.text.slice(cut);
      excess -= cut;
      turn.textChars -= cut;
      turn.snapshot.droppedChars += cut;
      if (!segment.text) segments.splice(index, 1);
    }
  }

  private addTool(turn: Turn, event: Extract<AgentEvent, { type: 'tool-call-start' }>): void {
    const segments = turn.snapshot.segments;
    segments.push({
      type: 'tool',
      id: event.callId,
      name: event.name,
      hint: event.hint,
      ...(event.args !== undefined ? { args: event.args } : {}),
      running: true,
    });
    turn.toolCount++;
    if (turn.toolCount <= this.maxTools) return;
    const oldest = segments.findIndex((segment) => segment.type === 'tool');
    segments.splice(oldest, 1);
    turn.toolCount--;
    turn.snapshot.droppedTools++;
  }

  private tell(turn: Turn, change: TurnChange): void {
    for (const watcher of [...turn.watchers]) watcher(change);
  }

  private copy(snapshot: TurnSnapshot): TurnSnapshot {
    return {
      ...snapshot,
      segments: snapshot.segments.map((segment) => ({ ...segment })),
      approvals: [...snapshot.approvals],
    };
  }

  /** Forgets ended turns older than `keepMs`. */
  private prune(): void {
    const now = this.now();
    for (const [id, turn] of this.turns) {
      const ended = turn.snapshot.endedAt;
      if (ended !== undefined && now - ended >= this.keepMs) this.turns.delete(id);
    }
  }

  /** Above `maxTurns`, ended turns go first, oldest first (Map order is insertion order). */
  private makeRoom(): void {
    for (const [id, turn] of this.turns) {
      if (this.turns.size <= this.maxTurns) return;
      if (turn.snapshot.state !== 'running') this.turns.delete(id);
    }
  }
}
