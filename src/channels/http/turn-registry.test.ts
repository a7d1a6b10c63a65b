import { describe, expect, it } from 'vitest';
import type { AgentEvent, ApprovalRequest, OutboundMessage } from '../../bus/messages.js';
import { type TurnChange, TurnRegistry } from './turn-registry.js';

const where = { sessionId: 's1', replyTo: 'm1', channel: 'api', chatId: 's1' };
const delta = (text: string): AgentEvent => ({ ...where, type: 'text-delta', text });
const toolStart = (callId: string, args = '{}'): AgentEvent => ({
  ...where,
  type: 'tool-call-start',
  callId,
  name: 'exec',
  hint: `calling exec(${callId})`,
  args,
});
const toolEnd = (callId: string): AgentEvent => ({
  ...where,
  type: 'tool-call-end',
  callId,
  name: 'exec',
  isError: false,
  preview: 'ok',
});
const reply = (text: string, extra: Partial<OutboundMessage> = {}): OutboundMessage => ({
  channel: 'api',
  chatId: 's1',
  replyTo: 'm1',
  sessionId: 's1',
  text,
  kind: 'reply',
  usage: { inputTokens: 1, outputTokens: 1 },
  ...extra,
});
const request = (id: string, sessionId = 's1') =>
  ({ id, sessionId, channel: 'api', chatId: sessionId, tool: 'exec' }) as unknown as ApprovalRequest;

function clock(start = 1_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('TurnRegistry', () => {
  it('keeps a running turn: its text (deltas merged), tool calls in order, and its end with the answer', () => {
    const time = clock();
    const turns = new TurnRegistry({ now: time.now });
    turns.begin('m1', 's1', 'hello');
    turns.record('m1', delta('Hel'));
    turns.record('m1', delta('lo. '));
    turns.record('m1', toolStart('c1'));
    turns.record('m1', toolEnd('c1'));
    turns.record('m1', delta('Done.'));
    expect(turns.current('s1')).toMatchObject({
      id: 'm1',
      session: 's1',
      state: 'running',
      message: 'hello',
      startedAt: 1_000,
      segments: [
        { type: 'text', text: 'Hello. ' },
        { type: 'tool', id: 'c1', name: 'exec', running: false, isError: false, preview: 'ok' },
        { type: 'text', text: 'Done.' },
      ],
    });
    expect(turns.runningId('s1')).toBe('m1');
    time.advance(50);
    turns.end('m1', reply('Hello. Done.', { notice: 'cut short' }));
    expect(turns.current('s1')).toMatchObject({
      state: 'done',
      endedAt: 1_050,
      result: { text: 'Hello. Done.', kind: 'reply', notice: 'cut short' },
    });
    expect(turns.runningId('s1')).toBeUndefined();
    // Events after the end change nothing.
    turns.record('m1', delta('late'));
    expect(turns.current('s1')?.segments).toHaveLength(3);
  });

  it('tells a watcher everything from the moment of its snapshot, ending with `end`; its snapshot is a copy', () => {
    const turns = new TurnRegistry();
    turns.begin('m1', 's1', 'hi');
    turns.record('m1', delta('before'));
    const seen: TurnChange[] = [];
    const watched = turns.watch('s1', (change) => seen.push(change));
    expect(watched?.snapshot.segments).toEqual([{ type: 'text', text: 'before' }]);
    turns.record('m1', delta(' after'));
    expect(watched?.snapshot.segments).toEqual([{ type: 'text', text: 'before' }]);
    turns.approval({ type: 'approval-requested', request: request('a1') });
    turns.end('m1', reply('before after'));
    expect(seen.map((change) => change.type)).toEqual(['event', 'approval', 'end']);
    const end = seen.at(-1) as Extract<TurnChange, { type: 'end' }>;
    expect(end.snapshot).toMatchObject({ state: 'done', approvals: [] });
    // Watching an ended turn gives its snapshot and nothing more.
    const later: TurnChange[] = [];
    expect(turns.watch('s1', (change) => later.push(change))?.snapshot.state).toBe('done');
    expect(later).toEqual([]);
    expect(turns.watch('other', () => {})).toBeUndefined();
  });

  it('holds the approvals its session waits for, and drops answered ones and other sessions’', () => {
    const turns = new TurnRegistry();
    turns.begin('m1', 's1', 'hi');
    turns.approval({ type: 'approval-requested', request: request('a1') });
    turns.approval({ type: 'approval-requested', request: request('a2') });
    turns.approval({ type: 'approval-requested', request: request('x1', 's2') });
    turns.approval({
      type: 'approval-resolved',
      id: 'a1',
      sessionId: 's1',
      channel: 'api',
      chatId: 's1',
    } as never);
    expect(turns.current('s1')?.approvals.map((item) => item.id)).toEqual(['a2']);
  });

  it('caps the text it keeps, dropping the oldest and counting what it dropped', () => {
    const turns = new TurnRegistry({ maxTextChars: 10 });
    turns.begin('m1', 's1', 'x'.repeat(50));
    turns.record('m1', delta('0123456'));
    turns.record('m1', toolStart('c1'));
    turns.record('m1', delta('789abcdef'));
    const snapshot = turns.current('s1')!;
    const text = snapshot.segments.map((segment) => (segment.type === 'text' ? segment.text : '|')).join('');
    expect(text).toBe('6|789abcdef');
    expect(snapshot.droppedChars).toBe(6);
    expect(snapshot.message).toHaveLength(10);
    // A flood of deltas stays within the cap.
    for (let index = 0; index < 10_000; index++) turns.record('m1', delta('zz'));
    const flooded = turns.current('s1')!;
    const kept = flooded.segments.reduce(
      (sum, item) => sum + (item.type === 'text' ? item.text.length : 0),
      0,
    );
    expect(kept).toBe(10);
    expect(flooded.droppedChars).toBe(6 + 20_000);
  });

  it('caps the tool calls it keeps', () => {
    const turns = new TurnRegistry({ maxTools: 2 });
    turns.begin('m1', 's1', 'x');
    for (const id of ['c1', 'c2', 'c3']) turns.record('m1', toolStart(id));
    const snapshot = turns.current('s1')!;
    expect(snapshot.segments.map((segment) => (segment.type === 'tool' ? segment.id : ''))).toEqual([
      'c2',
      'c3',
    ]);
    expect(snapshot.droppedTools).toBe(1);
  });

  it('forgets an ended turn after keepMs, and never a running one', () => {
    const time = clock();
    const turns = new TurnRegistry({ now: time.now, keepMs: 100 });
    turns.begin('m1', 's1', 'a');
    turns.begin('m2', 's2', 'b');
    turns.end('m1', 'stopped');
    expect(turns.current('s1')?.state).toBe('stopped');
    time.advance(99);
    expect(turns.current('s1')).toBeDefined();
    time.advance(1);
    expect(turns.current('s1')).toBeUndefined();
    time.advance(1_000_000);
    expect(turns.current('s2')?.state).toBe('running');
    expect(turns.size).toBe(1);
  });

  it('holds at most maxTurns, making room by forgetting ended turns oldest first', () => {
    const turns = new TurnRegistry({ maxTurns: 2 });
    turns.begin('m1', 's1', 'a');
    turns.end('m1', reply('a'));
    turns.begin('m2', 's2', 'b');
    turns.begin('m3', 's3', 'c');
    expect(turns.current('s1')).toBeUndefined();
    turns.begin('m4', 's4', 'd');
    // Running turns are never dropped (the runtime bounds how many run).
    expect(['s2', 's3', 's4'].map((session) => turns.current(session)?.state)).toEqual([
      'running',
      'running',
      'running',
    ]);
  });

  it('shows a session’s oldest running turn before a newer queued one, then the newer one', () => {
    const turns = new TurnRegistry();
    turns.begin('m1', 's1', 'first');
    turns.begin('m2', 's1', 'second');
    expect(turns.current('s1')?.message).toBe('first');
    turns.end('m1', reply('one'));
    expect(turns.current('s1')?.message).toBe('second');
    turns.end('m2', { ...reply('aborted'), stopReason: 'aborted' });
    expect(turns.current('s1')).toMatchObject({ message: 'second', state: 'stopped' });
  });

  it('marks a failed turn `error`', () => {
    const turns = new TurnRegistry();
    turns.begin('m1', 's1', 'x');
    turns.end('m1', reply('every model failed', { kind: 'error' }));
    expect(turns.current('s1')).toMatchObject({ state: 'error', result: { kind: 'error' } });
  });
});
