import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import * as z from 'zod';

/** Turns `"42"` / `"true"` (the result of `${VAR}`) into 42 / true; other values pass through. */
function fromString(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const text = value.trim();
  if (/^-?\d+$/.test(text)) return Number(text);
  if (text === 'true') return true;
  if (text === 'false') return false;
  return value;
}

const integer = (min: number, max: number) => z.preprocess(fromString, z.number().int().min(min).max(max));
const flag = z.preprocess(fromString, z.boolean());
const envName = z
  .string()
  .trim()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*\*?$/, {
    message: 'must be an environment variable name such as GOPATH or LC_*',
  });

/** `auto`: bubblewrap where it works, else no sandbox; `bwrap`: bubblewrap or refuse; `none`: never. */
export const SANDBOXES = ['none', 'bwrap', 'auto'] as const;

/** `tools.exec:` — the shell tool. Timeouts are in seconds. */
export const execSectionSchema = z
  .strictObject({
    enabled: flag.default(true),
    timeout: integer(1, 3600).default(60),
    max_timeout: integer(1, 3600).default(600),
    sandbox: z.enum(SANDBOXES).default('auto'),
    env_allow: z.array(envName).default([]),
    output_cap: integer(1000, 1_000_000).default(10_000),
    log_cap_mb: integer(1, 10_000).default(10),
  })
  .refine((exec) => exec.timeout <= exec.max_timeout, {
    message: 'timeout must not exceed max_timeout',
    path: ['timeout'],
  });

/**
 * The `tools:` section of config.yaml (snake_case, strict, every key defaulted):
 * `extra_roots` are folders the file tools may reach besides the workspace.
 */
export const toolsSectionSchema = z.strictObject({
  extra_roots: z.array(z.string().trim().min(1)).default([]),
  exec: execSectionSchema.prefault({}),
});

export type ToolsSection = z.output<typeof toolsSectionSchema>;

/** The shell tool's settings (camelCase, seconds). */
export interface ExecConfig {
  enabled: boolean;
  timeout: number;
  maxTimeout: number;
  sandbox: (typeof SANDBOXES)[number];
  envAllow: string[];
  outputCap: number;
  /** Megabytes of one command's output saved in `.wren/exec/`; the rest is dropped. */
  logCapMb: number;
}

export interface ToolsConfig {
  /** Absolute paths; `~` expanded. */
  extraRoots: string[];
  exec: ExecConfig;
}

/** The typed tools settings from a parsed section; `~/…` roots expand against `home`. Pure. */
export function toToolsConfig(parsed: ToolsSection, home: string = homedir()): ToolsConfig {
  const expand = (path: string) =>
    path === '~'
      ? home
      : path.startsWith('~/')
        ? join(home, path.slice(2))
        : isAbsolute(path)
          ? path
          : resolve(path);
  return {
    extraRoots: parsed.extra_roots.map(expand),
    exec: {
      enabled: parsed.exec.enabled,
      timeout: parsed.exec.timeout,
      maxTimeout: parsed.exec.max_timeout,
      sandbox: parsed.exec.sandbox,
      envAllow: [...parsed.exec.env_allow],
      outputCap: parsed.exec.output_cap,
      logCapMb: parsed.exec.log_cap_mb,
    },
  };
}
