import * as z from 'zod';

export const GATE_MODES = ['ask', 'strict', 'auto'] as const;
export const GATE_ACTIONS = ['allow', 'ask', 'deny'] as const;

/** `ask` asks for sensitive and dangerous calls, `strict` from moderate up, `auto` allows every tier. */
export type GateMode = (typeof GATE_MODES)[number];
export type GateAction = (typeof GATE_ACTIONS)[number];

/** A tool-name glob plus, optionally, argument globs that must all match (`{command: 'git *'}`). */
export interface GateMatcher {
  readonly tool: string;
  readonly match: Readonly<Record<string, string>>;
}

export interface GateRule extends GateMatcher {
  readonly action: GateAction;
  /**
   * Danger-signature globs an `allow` rule lifts (`"pipes into an interpreter*"`, `"cannot be analysed*"`).
   * Without them an allow rule lifts none: signatures still ask.
   */
  readonly signatures?: readonly string[];
}

/** What senders who are not the owner may not do. */
export interface NonOwnerPolicy {
  /** Tool-name globs denied outright (exec, memory writes, scheduling…). */
  readonly denyTools: readonly string[];
  /** Tools whose `path` argument must stay inside the sender's own folder. */
  readonly fileTools: readonly string[];
  /** Workspace-relative folder holding one sub-folder per sender id. */
  readonly userFolder: string;
  /** Skill names whose instructions a non-owner's turn carries in full (their prompt has no skills index). */
  readonly skills: readonly string[];
}

/** The `gate:` section, camelCase, validated. */
export interface GateConfig {
  readonly mode: GateMode;
  readonly deny: readonly GateMatcher[];
  readonly rules: readonly GateRule[];
  readonly alwaysAllow: readonly string[];
  readonly alwaysAsk: readonly string[];
  /** Host globs data may go to even from a tainted session. */
  readonly egressAllow: readonly string[];
  /** Seconds an approval waits before it counts as denied. */
  readonly approvalTimeoutSeconds: number;
  /** Secret values by name, for `{{secret:NAME}}`; never log them. */
  readonly secrets: Readonly<Record<string, string>>;
  readonly nonOwner: NonOwnerPolicy;
}

const nonEmpty = z.string().trim().min(1);
const argGlobs = z.record(nonEmpty, z.string());

const matcher = z.union([
  nonEmpty.transform((tool) => ({ tool, match: {} })),
  z.strictObject({ tool: nonEmpty, match: argGlobs.default({}) }),
]);

const GLOB_CHARACTERS = /[*?[\]{}!]/;

const rule = z
  .strictObject({
    tool: nonEmpty,
    match: argGlobs.default({}),
    action: z.enum(GATE_ACTIONS),
    signatures: z.array(nonEmpty).optional(),
  })
  .refine(
    (value) =>
      value.signatures === undefined ||
      (value.action === 'allow' &&
        !GLOB_CHARACTERS.test(value.tool) &&
        Object.keys(value.match).length > 0 &&
        Object.values(value.match).every((glob) => !GLOB_CHARACTERS.test(glob))),
    {
      message:
        'a rule that lifts signatures must be an allow rule naming one exact call: a tool name and match values without * ? [ ] { } !',
      path: ['signatures'],
    },
  );

const seconds = z.preprocess(
  (value) => (typeof value === 'string' && /^\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : value),
  z.number().positive(),
);

const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export const DEFAULT_NON_OWNER_DENY = [
  'exec',
  'memo',
  'task',
  'memory_search',
  'message',
  'read_skill',
  '*__*',
  'memory_write',
  'memory_edit',
  'cron',
  'reminder',
  'spawn',
  'mcp_server',
  'goal',
] as const;
export const DEFAULT_FILE_TOOLS = ['read_file', 'write_file', 'edit_file', 'list_dir', 'send_file'] as const;

/** `gate:` in config.yaml (snake_case keys, strict objects, every key optional). */
export const gateSectionSchema = z.strictObject({
  mode: z.enum(GATE_MODES).default('ask'),
  deny: z.array(matcher).default([]),
  rules: z.array(rule).default([]),
  always_allow: z.array(nonEmpty).default([]),
  always_ask: z.array(nonEmpty).default([]),
  egress_allow: z.array(nonEmpty).default([]),
  /** Seconds. */
  approval_timeout: seconds.default(600),
  secrets: z
    .record(
      z.string().regex(SECRET_NAME, 'secret names are letters, digits and _ (e.g. GITHUB_TOKEN)'),
      z.string(),
    )
    .default({}),
  non_owner: z
    .strictObject({
      deny_tools: z.array(nonEmpty).default([...DEFAULT_NON_OWNER_DENY]),
      file_tools: z.array(nonEmpty).default([...DEFAULT_FILE_TOOLS]),
      user_folder: nonEmpty
        .refine((path) => !path.startsWith('/') && !path.split('/').includes('..'), {
          message: 'must be a folder relative to the workspace, without ..',
        })
        .default('users'),
      skills: z.array(nonEmpty).default([]),
    })
    .prefault({}),
});

export type GateSection = z.output<typeof gateSectionSchema>;

/** Maps a parsed `gate:` section to the camelCase {@link GateConfig}. Pure. */
export function toGateConfig(parsed: GateSection): GateConfig {
  return {
    mode: parsed.mode,
    deny: parsed.deny,
    rules: parsed.rules,
    alwaysAllow: parsed.always_allow,
    alwaysAsk: parsed.always_ask,
    egressAllow: parsed.egress_allow,
    approvalTimeoutSeconds: parsed.approval_timeout,
    secrets: parsed.secrets,
    nonOwner: {
      denyTools: parsed.non_owner.deny_tools,
      fileTools: parsed.non_owner.file_tools,
      userFolder: parsed.non_owner.user_folder.replace(/\/+$/, ''),
      skills: parsed.non_owner.skills,
    },
  };
}

/** The defaults, as if `gate:` were absent. */
export function defaultGateConfig(): GateConfig {
  return toGateConfig(gateSectionSchema.parse({}));
}
