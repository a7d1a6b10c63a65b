import type { JsonSchema } from '../llm/types.js';

/** How much harm a tool call could do; the gate maps risk × mode to allow/ask. */
export type Risk = 'safe' | 'moderate' | 'sensitive' | 'dangerous';

/** What the core hands a tool when it runs. */
export interface ToolContext {
  sessionId: string;
  channel: string;
  chatId: string;
  /** Who sent the message this turn answers (a platform id; `owner` for the terminal and the API). */
  senderId: string;
  /** Whether that sender is the owner (non-owners get a reduced tool set). */
  isOwner: boolean;
  /** Whether the owner can be asked for an approval right now (a terminal, a chat), or asks must be denied. */
  interactive: boolean;
  /** Absolute real path of the workspace folder. */
  workspace: string;
  /** Subagent hops that led to this turn (0 or absent: a person started it); see InboundMessage.spawnDepth. */
  spawnDepth?: number;
}

/** What a call would do, beyond its tool's risk tier: the facts the gate decides on. */
export interface ToolAssessment {
  /** Danger signatures found in the arguments (e.g. `recursive delete of /`); any one escalates to ask. */
  signatures?: string[];
  /** What the tool could not analyse (e.g. `eval`, an unparsable command): the gate asks. */
  unanalysable?: string;
  /** Set when the call sends data off the machine: the host or recipient it reaches. */
  egress?: { target: string };
  /** What an `always` grant binds to: exec → program name, files → path prefix, web → host. */
  target?: string;
  /**
   * File tools: the resolved path the call touches, relative to the workspace (absolute for extra roots),
   * as gate rules' `match: {path: …}` globs see it.
   */
  path?: string;
  /**
   * Set when the call stores text that later prompts will read (a task, a memo, a reminder): what it stores.
   * After untrusted content such a call asks, so an injected instruction cannot plant itself for later turns.
   */
  persists?: string;
  /**
   * Set when the call deletes or switches off something the owner set up (a reminder, a cron job): what it
   * removes. After untrusted content such a call asks in strict mode; otherwise it runs and the owner is told
   * in the turn's answer, so an injected instruction cannot quietly cancel what the owner relies on.
   */
  removes?: string;
}

export interface ToolResult {
  /** What the model sees. */
  content: string;
  /** What the UI and logs see (full output, structured data). */
  details?: unknown;
  isError?: boolean;
  /**
   * Set when the result carries content the owner did not write (`untrusted`: web pages, mail, MCP output)
   * or data that must not leave (`private`: files outside the workspace, memory): the session is tainted.
   */
  taint?: 'untrusted' | 'private';
}

/**
 * The tool contract. `execute` receives arguments already validated against `parameters`.
 * A thrown error is caught by the loop and returned to the model as an error result; it never ends the turn.
 */
export interface Tool {
  name: string;
  description: string;
  parameters: JsonSchema;
  risk: Risk;
  /**
   * Core tools have their schema in every request. The others are listed by name and one line in the
   * `use_tools` description and sent only after the model activates them (saves tokens).
   */
  core?: boolean;
  /**
   * For an on-demand tool: the short area it belongs to (`scheduling`, `messaging` …). The catalogue lists
   * each area once with its tools' names (`- scheduling: reminder, cron, goal`), so a new tool adds a word,
   * not a line: its name and area must say what it is for; the description arrives when it is loaded. A tool
   * without an area gets a line of its own with the first words of its description.
   */
  area?: string;
  /** Examines one call's arguments for the gate; pure and fast (no I/O beyond path resolution). */
  assess?(args: Record<string, unknown>, ctx: ToolContext): ToolAssessment | Promise<ToolAssessment>;
  /** Whether `{{secret:NAME}}` references in its arguments are resolved before it runs. */
  acceptsSecrets?: boolean;
  /**
   * Which of a vault secret's bindings the call's assessed `target` is checked against (web host, exec
   * programs, MCP server). A tool without it gets no `{{vault:NAME}}` resolved: the gate denies such a call.
   */
  vaultTarget?: 'hosts' | 'programs' | 'mcp';
  execute(args: Record<string, unknown>, ctx: ToolContext, signal: AbortSignal): Promise<ToolResult>;
}

/** A tool failure whose message is meant for the model (and the user) verbatim. */
export class ToolError extends Error {
  override name = 'ToolError';
}
