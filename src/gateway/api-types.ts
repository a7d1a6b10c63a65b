/**
 * The JSON the gateway answers with, shared by the server (which checks each answer it builds against these
 * with `satisfies`) and the web app (which reads answers as these), so a change on one side breaks the
 * type-check of the other. Types only: no runtime code, no imports, nothing Node- or DOM-specific, so the
 * web build stays free of server code. Fields a page does not rely on are optional, so a server that adds
 * or drops one does not break the app.
 */

export interface SessionRecord {
  id: string;
  key: string;
  channel: string;
  chatId: string;
  /** Not sent by every server version: the list falls back to the channel and chat. */
  title?: string;
  createdAt: number;
  updatedAt: number;
}

export interface TextPart {
  type: 'text';
  text: string;
}

export interface ImagePart {
  type: 'image';
  /** Base64 without a data: prefix. */
  data: string;
  mediaType: string;
}

export interface ToolCall {
  id: string;
  name: string;
  /** The raw argument text as the model produced it (usually JSON). */
  arguments: string;
}

export type ChatMessage =
  | { role: 'user'; content: string | Array<TextPart | ImagePart> }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; toolName: string; content: string; isError?: boolean };

export interface StoredMessage {
  seq: number;
  message: ChatMessage;
  tokens: number;
  createdAt: number;
}

export type ApprovalChoice = 'once' | 'session' | 'always' | 'deny';

export interface ApprovalRequest {
  id: string;
  sessionId: string;
  channel: string;
  chatId: string;
  senderId: string;
  tool: string;
  /** JSON with secrets redacted (may be cut to head and tail when very long). */
  args: string;
  reason: string;
  target?: string;
  /** One line each: `runs: …`, `reaches: …`, `danger: …`. */
  facts?: string[];
  choices: ApprovalChoice[];
  createdAt: number;
  expiresAt: number;
}

export interface ApprovalResolved {
  type: 'approval-resolved';
  id?: string;
  sessionId: string;
  channel: string;
  chatId: string;
  tool: string;
  outcome: ApprovalChoice | 'timeout' | 'cancelled' | 'unattended';
  by?: string;
  reason?: string;
}

export interface Grant {
  id: string;
  tool: string;
  target?: string;
  scope: 'once' | 'session' | 'always';
  sessionId?: string;
  createdAt: number;
  createdBy: string;
}

export interface Pairing {
  code: string;
  channel: string;
  senderId: string;
  chatId: string;
  senderName: string;
  createdAt: number;
  expiresAt: number;
  /** Null while the code waits for the owner. */
  approvedAt: number | null;
}

export interface Attachment {
  name: string;
  size: number;
  url: string;
}

/** What Wren sends on its own (the `message` frame of /ws and /api/events). */
export interface LiveMessage {
  session: string;
  channel: string;
  chat: string;
  replyTo?: string;
  text: string;
  kind: string;
  attachments: Attachment[];
}

export interface ActivityEvent {
  phase: 'start' | 'end';
  session: string;
  channel: string;
  chat: string;
}

export interface FeedItem {
  id: number;
  outboxId?: number;
  kind: string;
  title: string;
  text: string;
  /** Wren answered `[quiet]`: nothing was sent anywhere, the entry only lives in the feed. */
  quiet: boolean;
  late: boolean;
  failed: boolean;
  createdAt: number;
  readAt?: number;
}

export type ReminderMode = 'notify' | 'agent';

export interface Reminder {
  id: number;
  text: string;
  mode: ReminderMode;
  at?: number;
  cron?: string;
  timezone: string;
  nextAt?: number;
  status: 'active' | 'done' | 'cancelled';
  deliverTo: string[];
  sessionId?: string;
  fired: number;
  lastFiredAt?: number;
  createdAt: number;
  updatedAt: number;
}

export type TaskPriority = 'low' | 'normal' | 'high';

export interface Task {
  id: number;
  title: string;
  notes: string;
  /** `YYYY-MM-DD` or `YYYY-MM-DD HH:MM`. */
  due?: string;
  priority: TaskPriority;
  status: 'open' | 'done';
  createdAt: number;
  updatedAt: number;
  completedAt?: number;
}

export interface Memo {
  id: number;
  text: string;
  /** Not stored by every server version. */
  tags?: string[];
  createdAt: number;
  updatedAt: number;
}

export type GoalStatus = 'active' | 'paused' | 'done' | 'cancelled';
export type StepStatus = 'pending' | 'in_progress' | 'done' | 'blocked' | 'skipped';

export interface Goal {
  id: number;
  title: string;
  why?: string;
  status: GoalStatus;
  dueDate?: string;
  checkinCron?: string;
  timezone: string;
  nextCheckinAt?: number;
  passes: number;
  lastPassAt?: number;
  lastTouchedAt: number;
  sessionId?: string;
  deliverTo: string[];
  createdAt: number;
  updatedAt: number;
}

export interface GoalStep {
  id: number;
  goalId: number;
  position: number;
  title: string;
  status: StepStatus;
  notes: string;
  updatedAt: number;
}

export interface GoalProposal {
  id: number;
  goalId: number;
  reason: string;
  steps: Array<{ title: string; status?: StepStatus; notes?: string }>;
  status: 'pending' | 'accepted' | 'dismissed';
  createdAt: number;
}

export interface GoalDetail extends Goal {
  steps: GoalStep[];
  proposals: GoalProposal[];
}

export interface ModelInfo {
  name: string;
  provider?: string;
  protocol?: string;
  model: string;
  baseUrl?: string;
  tags: string[];
  priority?: number;
  enabled?: boolean;
  /** `ready`, `cooling`, `failing`, `disabled`. */
  state?: string;
  cooldownUntil?: number;
  latencyMs?: number;
  lastError?: string;
  lastErrorAt?: number;
  testedAt?: number;
}

export interface ModelTest {
  ok: boolean;
  latencyMs?: number;
  error?: string;
}

export interface McpServer {
  name: string;
  enabled: boolean;
  state: string;
  error?: string;
  reason?: string;
  /** `/api/mcp` sends objects; `/api/status` sends bare names. */
  tools: Array<{ name: string; description?: string } | string>;
}

export type ChannelState =
  | 'starting'
  | 'connected'
  | 'reconnecting'
  | 'linking'
  | 'logged-out'
  | 'failed'
  | 'stopped';

export interface ChannelStatus {
  name: string;
  state: ChannelState;
  detail?: string;
  since: number;
  /** While `linking`: the QR payload to draw, or the pairing code to type on the phone. */
  link?: { qr?: string; code?: string; expiresAt?: number };
  /** The channel links by device (WhatsApp): `POST /api/channels/:name/link|unlink` apply to it. */
  linkable?: boolean;
}

/** `POST /api/channels/:name/link` and `…/unlink`: the channel's status right after. */
export interface ChannelLinked {
  channel: ChannelStatus;
}

/** `POST /api/channels/:name/test`: the test message went to the owner's chat `chatId`. */
export interface ChannelTested {
  delivered: true;
  chatId: string;
}

export interface Status {
  version: string;
  pid?: number;
  uptimeSeconds: number;
  configError?: string;
  models: Array<{
    name: string;
    protocol?: string;
    model: string;
    tags: string[];
    enabled?: boolean;
    coolingUntil?: number | null;
  }>;
  turnsInFlight?: number;
  /** The process's memory in MB: resident set, and the JavaScript heap's used and total size. */
  memoryMb?: { rss: number; heapUsed: number; heapTotal: number };
  mcp?: McpServer[];
  scheduler?: { running: boolean; nextDue: number | null };
  connected?: string[];
  channels?: ChannelStatus[];
}

export interface OnboardingPreset {
  id: string;
  label: string;
  needsKey: boolean;
  keyVar?: string;
  baseUrl?: string;
  defaultModel?: string;
  /** A server on this machine (Ollama, LM Studio …). */
  local?: boolean;
  /** Where to get a key or how to start the server. */
  docs?: string;
}

export interface Onboarding {
  needed: boolean;
  presets: OnboardingPreset[];
  configError?: string;
}

export interface OnboardingResult {
  ok: boolean;
  /** False when the test failed and `force` was not given: nothing was written. */
  saved?: boolean;
  model?: string;
  test?: ModelTest;
}

/** What `POST /api/onboarding/briefing` answers: the briefing now in config.yaml. */
export interface OnboardingBriefing {
  /** `HH:MM`. */
  at: string;
  /** The days it runs on, Sunday first (`['mon', …, 'fri']`). */
  dayNames: string[];
}

export interface UploadedFile {
  name: string;
  path: string;
  size: number;
  url: string;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens?: number;
}

/** One part of a turn's reply: streamed text, or a tool call (hint, arguments and preview redacted). */
export type TurnSegment =
  | { type: 'text'; text: string }
  | {
      type: 'tool';
      id: string;
      name: string;
      hint: string;
      args?: string;
      running: boolean;
      isError?: boolean;
      preview?: string;
    };

/** A turn in flight (or just ended) as `GET /api/sessions/:id/turn` and a watched stream's `turn` event show it. */
export interface TurnSnapshot {
  id?: string;
  session: string;
  state: 'running' | 'done' | 'error' | 'stopped';
  /** The owner's message that started the turn. */
  message: string;
  startedAt: number;
  endedAt?: number;
  segments: TurnSegment[];
  /** Characters of streamed text dropped from the front (the server keeps a capped buffer). */
  droppedChars: number;
  droppedTools?: number;
  approvals?: ApprovalRequest[];
}

// --- Answers: the body of each route's success response --------------------------------------------------

/** `DELETE` answers: the id of what is gone. */
export type Deleted<Id = number> = { deleted: Id };
export type Revoked = { revoked: string };

export type SessionList = { sessions: SessionRecord[] };
export type SessionMessages = { session: string; messages: StoredMessage[] };

export type ApprovalList = { pending: ApprovalRequest[] };
export type GrantList = { grants: Grant[] };
export type PairingList = { pairings: Pairing[] };
export type PairingApproved = { pairing: Pairing };

export type FeedPage = { feed: FeedItem[] };

export type ReminderList = { reminders: Reminder[] };
/** A created or edited reminder with the server's reading of its time (absent when the time did not change). */
export type ReminderSaved = { reminder: Reminder; description?: string };
export type ReminderCancelled = { cancelled: number };

export type TaskList = { tasks: Task[] };
export type TaskSaved = { task: Task };

export type MemoList = { memos: Memo[] };
export type MemoSaved = { memo: Memo };

export type GoalList = { goals: Goal[] };

export type ModelList = { models: ModelInfo[]; note?: string };
export type McpList = { servers: McpServer[]; fileError?: string };
export type McpToggled = { server?: McpServer; note?: string };
/** The models a server at a base URL lists; `error` says why there are none. */
export type ServerModelList = { models: string[]; error?: string };
export type PushKey = { publicKey: string; enabled?: boolean };

/** One occurrence of a synced calendar's event; times are Unix ms (an all-day event: midnight to midnight in the owner's zone). */
export interface CalendarEvent {
  /** The calendar's name in config.yaml. */
  calendar: string;
  uid: string;
  start: number;
  end: number;
  allDay: boolean;
  summary: string;
  /** '' when the event names none. */
  location: string;
}

/** `GET /api/calendar`: the occurrences overlapping [from, to) (Unix ms), by start, all-day first. */
export interface CalendarAgenda {
  from: number;
  to: number;
  /** The owner's zone the default range ("today") was read in. */
  timezone: string;
  /** The configured calendars' names (none: the owner has not added one). */
  calendars: string[];
  occurrences: CalendarEvent[];
}

/** A configured calendar as Settings shows it: never its URL's path, user name or password. */
export interface CalendarInfo {
  name: string;
  kind: 'caldav' | 'ics';
  /** Only the host of its URL (an ICS URL's path is often its secret). */
  host: string;
  /** When it last synced (Unix ms), or null before its first sync. */
  syncedAt: number | null;
  /** The last sync's failure (secrets masked), or null. */
  error: string | null;
  /** Occurrences it holds in the sync window (a day back, 60 days ahead). */
  events: number;
}

export type CalendarList = { calendars: CalendarInfo[] };

// The memory files, their versions and HISTORY.md, and the everyday settings (own modules, for size).
export type * from './api-types-memory.js';
export type * from './api-types-memory-proposals.js';
export type * from './api-types-settings.js';
