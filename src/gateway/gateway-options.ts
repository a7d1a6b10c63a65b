import type { Hono } from 'hono';
import type { HttpChannel } from '../channels/http/http-channel.js';
import type { Gate } from '../gate/create-gate.js';
import type { GoalService } from '../services/goal-service.js';
import type { PairingService } from '../services/pairing-service.js';
import type { SessionService } from '../services/session-service.js';
import type { BrowserSessions } from './browser-sessions.js';
import type { CalendarRouteOptions } from './calendar-routes.js';
import type { ChannelControls } from './channel-routes.js';
import type { HookRouteOptions } from './hook-routes.js';
import type { OpenAiApprovalMode } from './openai-turn.js';
import type { ProactiveRouteOptions } from './proactive-routes.js';
import type { AuthLimiter } from './request-guard.js';

/** What the gateway is built from: createGateway's options, handed to every route group by mountRoutes. */
export interface GatewayOptions {
  /** The API's channel (started here): every chat message and event stream goes through it. */
  channel: HttpChannel;
  /** The stored conversations (`/api/sessions…`). */
  sessions: SessionService;
  verifyToken: (token: string) => boolean;
  /** Facts for `GET /api/status` (models, turns in flight, usage). */
  status: () => Record<string, unknown>;
  version: string;
  startedAt: number;
  /** Unexpected failures (logged by the caller; the client gets a generic message). */
  onError?: (error: Error) => void;
  /**
   * The approval gate: pending approvals, grants and the audit log (without it those routes answer 503), and
   * the vault (`/api/vault…`, not mounted without one).
   */
  gate?: Pick<Gate, 'approvals' | 'grants' | 'audit' | 'vault'>;
  /** Background subagents: `GET /api/subagents`, `DELETE /api/subagents/:id`. */
  subagents?: { list(): unknown[]; cancel(id: string): boolean };
  /** Folders `GET /api/files/<path>` may serve from (the workspace first); without it the route answers 404. */
  fileRoots?: () => string[];
  /** Reminders, the feed and the scheduler's tick; without it those routes answer 404. */
  proactive?: ProactiveRouteOptions;
  /** Goals, steps and proposals (`/api/goals…`); without it those routes answer 404. */
  goals?: GoalService;
  /** Pairing codes of the chat channels (`/api/pairings…`); without it those routes answer 404. */
  pairings?: PairingService;
  /** The running chat channels (`/api/channels/:name/link|unlink|test`); without it those routes answer 404. */
  channelControls?: ChannelControls;
  /** The synced calendars (`GET /api/calendar`, `GET /api/calendars`); without it those routes answer 404. */
  calendars?: CalendarRouteOptions;
  /** Inbound webhooks (`POST /hooks/<name>`, each authenticated by its own secret); without it none is served. */
  hooks?: HookRouteOptions;
  /** Host names requests may name in `Host`/`Origin` (default: the loopback names). */
  allowedHosts?: () => ReadonlySet<string>;
  /** Failed-token rate limiting (default: 10 per address per minute). */
  limiter?: AuthLimiter;
  /** Local commands' token (see gateway.json): accepted even while its address is rate-limited. */
  isLocalToken?: (token: string) => boolean;
  /**
   * The secret of this gateway run, kept in the home's `gateway.json`: `GET /api/health?challenge=X` answers
   * with `proof = HMAC-SHA256(secret, X)`, so a CLI can tell this home's gateway from whatever else answers on
   * the port before it sends a token.
   */
  instanceSecret?: string;
  /** Signed-in browsers (cookie sessions and one-time links); without it only bearer tokens authenticate. */
  browserSessions?: BrowserSessions;
  /** The built web app's folder (default: dist/web when built); `false` serves no app. */
  webRoot?: string | false;
  /** When the scheduler next wakes (ms), for the WebSocket's first frame. */
  nextDue?: () => number | null;
  /** Masks secrets in what the live views show of tool calls (the gate's redactor). */
  redact?: (text: string) => string;
  /**
   * `gateway.openai_compat.approvals` for `POST /v1/chat/completions`: `deny` calls that need approval at once,
   * or `wait` for the owner's answer (default `deny`).
   */
  openAiApprovals?: () => OpenAiApprovalMode;
  /**
   * Routes behind the auth check that are loaded on first use (memory, settings … — the web app's pages), so
   * their modules cost the gateway's start nothing: requests whose path `matches` go to the route group(s)
   * `load` resolves with (once, mounted together); their 404 falls through to the eager routes.
   */
  lazyRoutes?: { matches: (path: string) => boolean; load: () => Promise<Hono | readonly Hono[]> };
}
