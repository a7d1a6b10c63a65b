import { sessionKey, setSessionKey } from './session-key';
import { auth } from './state';
import type {
  ApprovalChoice,
  ApprovalList,
  CalendarAgenda,
  CalendarInfo,
  CalendarList,
  ChannelLinked,
  ChannelTested,
  FeedPage,
  GoalDetail,
  GoalList,
  GoalStatus,
  GoalStep,
  GrantList,
  McpList,
  McpToggled,
  Memo,
  MemoList,
  MemoryFileConflict,
  MemoryFileContent,
  MemoryFileList,
  MemoryFileWritten,
  MemoryHistoryPage,
  MemorySearchResults,
  MemoryVersionDetail,
  MemoryVersionList,
  MemoryVersionRestored,
  ModelList,
  ModelTest,
  Onboarding,
  OnboardingBriefing,
  OnboardingResult,
  PairingApproved,
  PairingList,
  PushKey,
  ReminderCancelled,
  ReminderList,
  ReminderMode,
  ReminderSaved,
  Revoked,
  ServerModelList,
  SessionList,
  SessionMessages,
  Settings,
  SettingsView,
  Status,
  StepStatus,
  Task,
  TaskList,
  TaskPriority,
  UploadedFile,
} from './types';

/**
 * Every call the web app makes to the gateway, in one place: paths, bodies and the shape of answers. The
 * gateway is the same origin; the session is an HttpOnly cookie (`credentials: 'same-origin'`), so no token
 * is ever read, stored or sent by this code after sign-in. Errors are `{error: {code, message}}`; `message`
 * is written for people and is what the pages show.
 */

export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Seconds from a 429's Retry-After. */
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

interface RequestOptions {
  body?: unknown;
  signal?: AbortSignal;
  /** A 401 is the expected answer (signing in with a wrong token), not a lost session. */
  quiet401?: boolean;
}

async function errorOf(response: Response): Promise<ApiError> {
  let code = 'http_error';
  let message = `The gateway answered ${response.status} ${response.statusText}`.trim();
  try {
    const data = (await response.json()) as { error?: { code?: string; message?: string } };
    if (data.error?.message) message = data.error.message;
    if (data.error?.code) code = data.error.code;
  } catch {
    // Not JSON (a proxy's error page): keep the status line.
  }
  const retry = Number(response.headers.get('retry-after'));
  return new ApiError(
    response.status,
    code,
    message,
    Number.isFinite(retry) && retry > 0 ? retry : undefined,
  );
}

/** A 401 anywhere means the session cookie is gone or expired: back to the sign-in screen. */
export function noteUnauthorized(status: number, quiet = false): void {
  if (status === 401 && !quiet) auth.value = 'signed-out';
}

/** fetch() with the app's defaults; network failures become an ApiError with status 0. */
export async function send(method: string, path: string, init: RequestInit = {}): Promise<Response> {
  const key = sessionKey();
  const headers = new Headers(init.headers);
  if (key) headers.set('x-wren-key', key);
  try {
    return await fetch(path, { method, credentials: 'same-origin', ...init, headers });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new ApiError(0, 'network', 'Cannot reach Wren. Is the gateway running?');
  }
}

async function request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const init: RequestInit = { headers };
  if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    init.body = JSON.stringify(options.body);
  }
  if (options.signal) init.signal = options.signal;
  const response = await send(method, path, init);
  if (!response.ok) {
    noteUnauthorized(response.status, options.quiet401);
    throw await errorOf(response);
  }
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

const get = <T>(path: string, signal?: AbortSignal) => request<T>('GET', path, signal ? { signal } : {});
const post = <T>(path: string, body?: unknown) => request<T>('POST', path, { body: body ?? {} });
const patch = <T>(path: string, body: unknown) => request<T>('PATCH', path, { body });
const put = <T>(path: string, body: unknown) => request<T>('PUT', path, { body });
const del = <T>(path: string, body?: unknown) =>
  request<T>('DELETE', path, body === undefined ? {} : { body });

const enc = encodeURIComponent;

/** `?a=1&b=2` from the defined entries, or ''. */
function query(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined) search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** Keeps only the defined fields of a PATCH body (absent means "unchanged"). */
function defined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as Partial<T>;
}

// --- Session (sign-in) -------------------------------------------------------------------------------------

export async function checkSession(): Promise<boolean> {
  const response = await send('GET', '/api/session', { headers: { accept: 'application/json' } });
  if (response.status === 401) return false;
  if (!response.ok) throw await errorOf(response);
  return true;
}

/**
 * Exchanges the gateway token for the session cookie and the session's key (kept; see session-key.ts).
 * 401: wrong token; 429: wait `retryAfter` seconds.
 */
export async function signIn(token: string): Promise<void> {
  const answer = await request<{ key: string }>('POST', '/api/session', { body: { token }, quiet401: true });
  setSessionKey(answer.key);
}

export async function signOut(): Promise<void> {
  try {
    await request<void>('DELETE', '/api/session', { quiet401: true });
  } finally {
    setSessionKey(undefined);
  }
}

/** The file name of a `Content-Disposition: attachment; filename="…"` header, if it names one. */
function attachmentName(response: Response): string | undefined {
  return /filename="([^"/\\]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1];
}

/**
 * Downloads a file of `GET /api/files/…` or `GET /api/backup` (a plain link cannot send the session key):
 * fetched, then handed to the browser as a download of a local blob, named `name` or else as the gateway
 * names it.
 */
export async function downloadFile(url: string, name?: string): Promise<void> {
  const response = await send('GET', url);
  if (!response.ok) {
    noteUnauthorized(response.status);
    throw await errorOf(response);
  }
  const saveAs = (name ?? attachmentName(response) ?? '').split('/').at(-1) || 'download';
  const blob = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = blob;
  link.download = saveAs;
  link.click();
  setTimeout(() => URL.revokeObjectURL(blob), 60_000);
}

// --- Chat --------------------------------------------------------------------------------------------------

export const listSessions = () => get<SessionList>('/api/sessions').then((r) => r.sessions);
export const sessionMessages = (id: string, signal?: AbortSignal) =>
  get<SessionMessages>(`/api/sessions/${enc(id)}/messages`, signal).then((r) => r.messages);

/** Uploads one file into the workspace (multipart field `file`). */
export async function uploadFile(file: File): Promise<UploadedFile> {
  const form = new FormData();
  form.append('file', file, file.name);
  const response = await send('POST', '/api/files', { body: form, headers: { accept: 'application/json' } });
  if (!response.ok) {
    noteUnauthorized(response.status);
    throw await errorOf(response);
  }
  return (await response.json()) as UploadedFile;
}

// --- Approvals, grants, pairings ---------------------------------------------------------------------------

export const listApprovals = () => get<ApprovalList>('/api/approvals').then((r) => r.pending);
export const answerApproval = (id: string, answer: ApprovalChoice) =>
  post<{ ok: true }>(`/api/approvals/${enc(id)}`, { answer });
export const listGrants = () => get<GrantList>('/api/grants').then((r) => r.grants);
export const revokeGrant = (id: string) => del<Revoked>(`/api/grants/${enc(id)}`);
export const listPairings = () => get<PairingList>('/api/pairings').then((r) => r.pairings);
export const approvePairing = (code: string) => post<PairingApproved>(`/api/pairings/${enc(code)}/approve`);
export const rejectPairing = (code: string) => del<Revoked>(`/api/pairings/${enc(code)}`);

// --- Feed and reminders ------------------------------------------------------------------------------------

export const listFeed = (limit = 50, before?: number) =>
  get<FeedPage>(`/api/feed${query({ limit, before })}`).then((r) => r.feed);

export const listReminders = (all = false) =>
  get<ReminderList>(`/api/reminders${all ? '?all=1' : ''}`).then((r) => r.reminders);
export const createReminder = (fields: { text: string; when: string; mode: ReminderMode }) =>
  post<Required<ReminderSaved>>('/api/reminders', fields);
export const updateReminder = (id: number, fields: { text?: string; when?: string; mode?: ReminderMode }) =>
  patch<ReminderSaved>(`/api/reminders/${id}`, defined(fields));
export const cancelReminder = (id: number) => del<ReminderCancelled>(`/api/reminders/${id}`);

// --- Tasks and memos ---------------------------------------------------------------------------------------

export type TaskFilter = 'open' | 'done' | 'all';
export interface TaskFields {
  title?: string;
  notes?: string;
  /** `null` clears the due date. */
  due?: string | null;
  priority?: TaskPriority;
  status?: 'open' | 'done';
}

/** Answers are either the record or `{task: record}`; both are accepted while the routes settle. */
const unwrap =
  <T>(key: string) =>
  (value: unknown) =>
    ((value as Record<string, unknown>)?.[key] ?? value) as T;

export const listTasks = (status: TaskFilter) =>
  get<TaskList>(`/api/tasks?status=${status}`).then((r) => r.tasks);
export const createTask = (fields: TaskFields & { title: string }) =>
  post<unknown>('/api/tasks', defined(fields)).then(unwrap<Task>('task'));
export const updateTask = (id: number, fields: TaskFields) =>
  patch<unknown>(`/api/tasks/${id}`, defined(fields)).then(unwrap<Task>('task'));
export const deleteTask = (id: number) => del<unknown>(`/api/tasks/${id}`);

export const listMemos = (q?: string) =>
  get<MemoList>(`/api/memos${query({ q: q?.trim() || undefined })}`).then((r) => r.memos);
export const createMemo = (text: string, tags?: string[]) =>
  post<unknown>('/api/memos', tags?.length ? { text, tags } : { text }).then(unwrap<Memo>('memo'));
export const updateMemo = (id: number, fields: { text?: string; tags?: string[] }) =>
  patch<unknown>(`/api/memos/${id}`, defined(fields)).then(unwrap<Memo>('memo'));
export const deleteMemo = (id: number) => del<unknown>(`/api/memos/${id}`);

// --- Goals -------------------------------------------------------------------------------------------------

export const listGoals = (status: 'open' | 'all' | GoalStatus = 'open') =>
  get<GoalList>(`/api/goals?status=${status}`).then((r) => r.goals);
export const getGoal = (id: number) => get<GoalDetail>(`/api/goals/${id}`);
export const createGoal = (fields: { title: string; why?: string; dueDate?: string; checkinCron?: string }) =>
  post<GoalDetail>('/api/goals', defined(fields));
export const updateGoal = (
  id: number,
  fields: {
    title?: string;
    why?: string | null;
    status?: GoalStatus;
    dueDate?: string | null;
    checkinCron?: string | null;
  },
) => patch<GoalDetail>(`/api/goals/${id}`, defined(fields));
export const addStep = (goal: number, fields: { title: string; notes?: string; status?: StepStatus }) =>
  post<GoalStep>(`/api/goals/${goal}/steps`, defined(fields));
export const updateStep = (
  goal: number,
  step: number,
  fields: { title?: string; notes?: string; status?: StepStatus },
) => patch<GoalStep>(`/api/goals/${goal}/steps/${step}`, defined(fields));
export const decideProposal = (id: number, decision: 'accept' | 'dismiss') =>
  post<unknown>(`/api/goals/proposals/${id}/${decision}`);

// --- Calendars (read-only: they are configured in config.yaml) --------------------------------------------

/** The occurrences of `days` days from the start of today in the owner's zone. */
export const getAgenda = (days: number) => get<CalendarAgenda>(`/api/calendar${query({ days })}`);
export const listCalendars = (): Promise<CalendarInfo[]> =>
  get<CalendarList>('/api/calendars').then((r) => r.calendars);

// --- Memory ------------------------------------------------------------------------------------------------

export const listMemoryFiles = () => get<MemoryFileList>('/api/memory').then((r) => r.files);
export const readMemoryFile = (name: string) => get<MemoryFileContent>(`/api/memory/files/${enc(name)}`);
/**
 * A write that holds only over the text the caller loaded (`If-Match: etag`): a 412 comes back as the
 * conflict (what the file holds now, who wrote it), never thrown; any other failure throws an ApiError.
 */
async function conditional<T>(
  method: string,
  path: string,
  etag: string | undefined,
  body?: unknown,
): Promise<{ ok: true; value: T } | { ok: false; conflict: MemoryFileConflict }> {
  const headers: Record<string, string> = { accept: 'application/json', 'content-type': 'application/json' };
  if (etag) headers['if-match'] = etag;
  const response = await send(method, path, { headers, body: JSON.stringify(body ?? {}) });
  if (response.status === 412) return { ok: false, conflict: (await response.json()) as MemoryFileConflict };
  if (!response.ok) {
    noteUnauthorized(response.status);
    throw await errorOf(response);
  }
  return { ok: true, value: (await response.json()) as T };
}
export const saveMemoryFile = (name: string, content: string, etag: string | undefined) =>
  conditional<MemoryFileWritten>('PUT', `/api/memory/files/${enc(name)}`, etag, { content });
export const memoryVersions = (file: string, limit = 50) =>
  get<MemoryVersionList>(`/api/memory/versions${query({ file, limit })}`).then((r) => r.versions);
export const memoryVersion = (id: number) => get<MemoryVersionDetail>(`/api/memory/versions/${id}`);
export const restoreMemoryVersion = (id: number, etag: string | undefined) =>
  conditional<MemoryVersionRestored>('POST', `/api/memory/versions/${id}/restore`, etag);
export const memoryHistory = (limit = 20, before?: string) =>
  get<MemoryHistoryPage>(`/api/memory/history${query({ limit, before })}`);
export const searchMemory = (q: string) =>
  get<MemorySearchResults>(`/api/memory/search${query({ q })}`).then((r) => r.results);

// --- Settings, models, MCP, status -------------------------------------------------------------------------

export const getStatus = () => get<Status>('/api/status');
export const listModels = () => get<ModelList>('/api/models');
export const testModel = (name: string) => post<ModelTest>(`/api/models/${enc(name)}/test`);
export const listMcp = () => get<McpList>('/api/mcp');
export const setMcpEnabled = (name: string, enabled: boolean) =>
  post<McpToggled>(`/api/mcp/${enc(name)}/${enabled ? 'enable' : 'disable'}`);
/** Starts linking a linked-device channel (a QR code, or a pairing code for `phone`); its status right after. */
export const linkChannel = (name: string, request: { method: 'qr' } | { method: 'code'; phone: string }) =>
  post<ChannelLinked>(`/api/channels/${enc(name)}/link`, request).then((r) => r.channel);
/** Logs the device out on the platform; the channel's status right after (`logged-out`). */
export const unlinkChannel = (name: string) =>
  post<ChannelLinked>(`/api/channels/${enc(name)}/unlink`).then((r) => r.channel);
/** Sends the owner a test message on channel `name`; rejects with the platform's refusal. */
export const testChannel = (name: string) => post<ChannelTested>(`/api/channels/${enc(name)}/test`);
export const getSettings = () => get<SettingsView>('/api/settings');
/** `null` clears quiet hours (and the time zone, back to the system's). */
export const updateSettings = (changes: Partial<Omit<Settings, 'configError'>>) =>
  patch<unknown>('/api/settings', changes).then(unwrap<SettingsView>('settings'));

// --- Onboarding --------------------------------------------------------------------------------------------

export const getOnboarding = () => get<Onboarding>('/api/onboarding');
export const finishOnboarding = (fields: {
  preset: string;
  key?: string;
  model?: string;
  baseUrl?: string;
  /** Save even though the test failed (a local server not started yet). */
  force?: boolean;
}) => post<OnboardingResult>('/api/onboarding', defined(fields));
/** Onboarding's optional step: the morning briefing at `at` (HH:MM) on weekdays or every day. */
export const startBriefing = (at: string, days: 'weekdays' | 'daily') =>
  post<OnboardingBriefing>('/api/onboarding/briefing', { at, days });
/** The models the server at `baseUrl` lists (the gateway asks it); `error` says why there are none. */
export const listServerModels = (baseUrl: string, key?: string, signal?: AbortSignal) =>
  request<ServerModelList>('POST', '/api/onboarding/models', {
    body: defined({ baseUrl, key: key || undefined }),
    ...(signal ? { signal } : {}),
  });

// --- Web push ----------------------------------------------------------------------------------------------

/** The VAPID key to subscribe with, and whether `proactive.push` sends to browsers now. */
export const pushKey = () => get<PushKey>('/api/push/key');
export const addPushSubscription = (subscription: PushSubscriptionJSON) =>
  post<unknown>('/api/push/subscriptions', subscription);
export const removePushSubscription = (endpoint: string) =>
  del<unknown>('/api/push/subscriptions', { endpoint });

// --- Vault -------------------------------------------------------------------------------------------------

/** Where a vault secret may go (see docs/vault.md). */
export interface VaultBindings {
  hosts?: string[];
  programs?: string[];
  mcp?: string[];
}
/** A vault secret as the gateway shows it: never its value. */
export interface VaultSecret {
  name: string;
  bindings: VaultBindings;
  createdAt: number;
  updatedAt: number;
  usedAt?: number;
}

export const listVault = () => get<{ secrets: VaultSecret[] }>('/api/vault').then((r) => r.secrets);
/** Stores (or replaces) a secret; the answer never holds the value. */
export const putVaultSecret = (name: string, value: string, bindings: VaultBindings) =>
  put<{ secret: VaultSecret }>(`/api/vault/${enc(name)}`, { value, bindings }).then((r) => r.secret);
export const removeVaultSecret = (name: string) => del<undefined>(`/api/vault/${enc(name)}`);
