import * as z from 'zod';
import { channelsSectionSchema } from '../channels/channels-config.js';
import { gateSectionSchema } from '../gate/gate-config.js';
import { mcpSectionSchema } from '../mcp/mcp-config.js';
import { memorySectionSchema } from '../memory/memory-config.js';
import { proactiveSectionSchema } from '../proactive/proactive-config.js';
import { toolsSectionSchema } from '../tools/tools-config.js';
import { webSectionSchema } from '../tools/web-config.js';
import { fromString } from '../util/from-string.js';
import { isTimeZone } from '../util/time-zone.js';
import { briefingSectionSchema } from './briefing-config.js';
import { calendarsSectionSchema } from './calendar-config.js';
import { hooksSectionSchema } from './hooks-config.js';
import { mailWatchSectionSchema } from './mail-watch-config.js';
import { backupSectionSchema, retentionSectionSchema } from './operations-config.js';

export const PROTOCOLS = ['openai', 'anthropic', 'gemini'] as const;
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error'] as const;

const integer = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  z.preprocess(fromString, z.number().int().min(min).max(max));
const positiveNumber = z.preprocess(fromString, z.number().positive());
const flag = z.preprocess(fromString, z.boolean());
const nonEmpty = z.string().trim().min(1);

const httpUrl = z
  .string()
  .trim()
  .refine((text) => /^https?:\/\/[^\s/]+/.test(text) && URL.canParse(text), {
    message: 'must be an http(s) URL such as https://api.example.com/v1',
  })
  .transform((text) => text.replace(/\/+$/, ''));

/** One `models:` entry. `timeout` is in seconds; protocol/base_url may come from `provider:` instead. */
export const modelSchema = z.strictObject({
  name: nonEmpty,
  provider: nonEmpty.optional(),
  protocol: z.enum(PROTOCOLS).optional(),
  base_url: httpUrl.optional(),
  api_key: z.string().optional(),
  model: nonEmpty,
  tags: z.array(nonEmpty).min(1).default(['default']),
  priority: integer(Number.MIN_SAFE_INTEGER).default(0),
  context_window: integer(1).optional(),
  max_output_tokens: integer(1).default(4096),
  enabled: flag.default(true),
  headers: z.record(z.string(), z.string()).optional(),
  /** Seconds. */
  timeout: positiveNumber.default(120),
  vision: flag.default(false),
});

const modelsSchema = z.array(modelSchema).superRefine((models, ctx) => {
  const seen = new Map<string, number>();
  models.forEach((model, index) => {
    const first = seen.get(model.name);
    if (first === undefined) seen.set(model.name, index);
    else
      ctx.addIssue({
        code: 'custom',
        path: [index, 'name'],
        message: `duplicate model name "${model.name}" (already used by models[${first}]); names must be unique`,
      });
  });
});

export const gatewaySchema = z.strictObject({
  host: nonEmpty.default('127.0.0.1'),
  port: integer(0, 65535).default(7777),
  /** Empty (e.g. `${WREN_TOKEN:-}` with the variable unset) means no token. */
  token: z.string().optional(),
  /** Host names (besides the bound address and loopback) browsers may use to reach the gateway. */
  allowed_hosts: z.array(nonEmpty).default([]),
  /** `/v1/chat/completions`: calls needing approval are denied at once, or wait for the owner's answer. */
  openai_compat: z.strictObject({ approvals: z.enum(['deny', 'wait']).default('deny') }).prefault({}),
});

/** `agent.subagents`: how far background subagents may fan out (the `spawn` tool). */
export const subagentsSchema = z.strictObject({
  /** Subagent hops: 1 = the owner's turn may spawn, a subagent's report may not spawn again. 0 = no spawning. */
  max_depth: integer(0, 3).default(1),
  /** Subagents queued or running per conversation at once. */
  per_session: integer(1, 50).default(3),
  /** Subagents one conversation may start in a rolling hour. */
  per_session_hourly: integer(1, 1000).default(20),
  /** Subagents queued or running across all conversations. */
  max_queued: integer(1, 200).default(10),
  /** Subagents running at once (the rest wait). */
  max_concurrent: integer(1, 20).default(3),
  max_rounds: integer(1, 200).default(15),
});

export const agentSchema = z.strictObject({
  max_rounds: integer(1).default(40),
  max_concurrency: integer(1).default(4),
  /** Tool calls of one model response that run at once (the rest wait their turn). */
  max_parallel_tools: integer(1, 64).default(4),
  max_tool_result_chars: integer(100).default(16000),
  repeat_limit: integer(1).default(3),
  history_reserve_tokens: integer(0).default(1024),
  timezone: nonEmpty
    .refine(isTimeZone, {
      message: 'unknown time zone; use an IANA name such as Europe/Berlin or America/New_York',
    })
    .optional(),
  subagents: subagentsSchema.prefault({}),
});

export const logSchema = z.strictObject({
  level: z.enum(LOG_LEVELS).default('info'),
  /** The log file rotates when it passes this size (wren.log → wren.log.1 …). */
  max_size_mb: integer(1, 10_000).default(10),
  /** Rotated files kept besides the live one. */
  keep: integer(1, 100).default(5),
});

/**
 * The schema of `config.yaml`, with keys spelled as users write them (snake_case). Every object is strict:
 * an unknown key is an error, never ignored. Numbers and booleans also accept their string spelling so that
 * `port: ${PORT}` works after interpolation. Every section is optional and has defaults.
 */
export const configSchema = z.strictObject({
  models: modelsSchema.default([]),
  gateway: gatewaySchema.prefault({}),
  agent: agentSchema.prefault({}),
  workspace: nonEmpty.optional(),
  log: logSchema.prefault({}),
  tools: toolsSectionSchema.prefault({}),
  gate: gateSectionSchema.prefault({}),
  web: webSectionSchema.prefault({}),
  memory: memorySectionSchema.prefault({}),
  mcp: mcpSectionSchema.prefault({}),
  proactive: proactiveSectionSchema.prefault({}),
  channels: channelsSectionSchema.prefault({}),
  backup: backupSectionSchema.prefault({}),
  retention: retentionSectionSchema.prefault({}),
  briefing: briefingSectionSchema.prefault({}),
  mail_watch: mailWatchSectionSchema.default([]),
  calendars: calendarsSectionSchema.default([]),
  hooks: hooksSectionSchema.default({}),
});

/** One `models:` entry as a user writes it (the input of {@link modelSchema}). */
export type ModelEntry = z.input<typeof modelSchema>;
/** `config.yaml` after validation and defaults, still snake_case and before presets are applied. */
export type ParsedConfig = z.output<typeof configSchema>;
export type ParsedModel = z.output<typeof modelSchema>;

interface ZodInternals {
  _zod: {
    def: {
      type: string;
      innerType?: unknown;
      in?: unknown;
      element?: unknown;
      shape?: Record<string, unknown>;
    };
  };
}

/**
 * The keys an object at `path` may have (for "did you mean" hints), or undefined when `path` does not lead
 * to an object in the schema.
 */
export function knownKeysAt(
  path: ReadonlyArray<PropertyKey>,
  schema: unknown = configSchema,
): string[] | undefined {
  let node = schema as ZodInternals;
  let index = 0;
  for (;;) {
    const def = node._zod.def;
    if (
      def.type === 'default' ||
      def.type === 'prefault' ||
      def.type === 'optional' ||
      def.type === 'nullable'
    ) {
      node = def.innerType as ZodInternals;
    } else if (def.type === 'pipe') {
      node = def.in as ZodInternals;
    } else if (index === path.length) {
      return def.type === 'object' && def.shape ? Object.keys(def.shape) : undefined;
    } else if (def.type === 'array' && typeof path[index] === 'number') {
      node = def.element as ZodInternals;
      index++;
    } else if (def.type === 'object' && def.shape && String(path[index]) in def.shape) {
      node = def.shape[String(path[index])] as ZodInternals;
      index++;
    } else {
      return undefined;
    }
  }
}
