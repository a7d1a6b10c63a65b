import * as z from 'zod';
import { TARGET } from '../proactive/proactive-config.js';
import { fromString } from '../util/from-string.js';

const integer = (min: number, max: number) => z.preprocess(fromString, z.number().int().min(min).max(max));

/** Hook names: what `POST /hooks/<name>` accepts (lower case, so a URL never differs by case alone). */
export const HOOK_NAME = /^[a-z0-9_-]{1,40}$/;
/** Shortest secret accepted: a signature or bearer token over fewer characters is guessable. */
export const MIN_HOOK_SECRET = 16;
/** Body cap when `max_body_kb` is not set: 1 MB. */
export const DEFAULT_HOOK_BODY_KB = 1024;

const hookSchema = z
  .strictObject({
    secret: z.string().refine((secret) => secret.length >= MIN_HOOK_SECRET, {
      message: `use a secret of at least ${MIN_HOOK_SECRET} characters (e.g. \`openssl rand -hex 24\`), kept in .env as \${VAR}`,
    }),
    notify: z.string().trim().min(1).max(4000).optional(),
    prompt: z.string().trim().min(1).max(8000).optional(),
    deliver_to: z.array(z.string().trim().regex(TARGET, 'use channel:chat or webhook:name')).optional(),
    rate_per_minute: integer(1, 6000).default(60),
    max_body_kb: integer(1, 10 * 1024).default(DEFAULT_HOOK_BODY_KB),
  })
  .refine((hook) => (hook.notify === undefined) !== (hook.prompt === undefined), {
    message: 'set exactly one of notify (a template delivered as is) or prompt (an agent run)',
  });

/**
 * `hooks:` in config.yaml — inbound webhooks, `POST /hooks/<name>` on the gateway:
 *
 * ```yaml
 * hooks:
 *   github:
 *     secret: ${GITHUB_HOOK_SECRET}        # HMAC-SHA256 key (X-Hub-Signature-256) or bearer token; ≥ 16 chars
 *     notify: "{{repository.full_name}}: {{action}}"   # delivered as is, no model call
 *     deliver_to: [telegram:owner]        # default: proactive.deliver_to
 *   door:
 *     secret: ${HA_HOOK_SECRET}
 *     prompt: "The front door sensor fired. Tell me if it looks unusual."   # an agent run, payload attached
 *     rate_per_minute: 10                 # default 60; more answer 429
 *     max_body_kb: 64                     # default 1024; more answer 413
 * ```
 */
export const hooksSectionSchema = z.record(z.string(), hookSchema).superRefine((hooks, ctx) => {
  for (const name of Object.keys(hooks))
    if (!HOOK_NAME.test(name))
      ctx.addIssue({
        code: 'custom',
        path: [name],
        message: 'hook names are 1-40 lower-case letters, digits, _ and - (the URL is /hooks/<name>)',
      });
});

export type HooksSection = z.output<typeof hooksSectionSchema>;

/** One configured hook. */
export interface HookConfig {
  readonly name: string;
  /** The HMAC key and bearer token; never log or print it. */
  readonly secret: string;
  /** `notify`: `text` is a template delivered without the model; `prompt`: `text` is an agent run's prompt. */
  readonly mode: 'notify' | 'prompt';
  readonly text: string;
  /** Where the result goes; undefined = `proactive.deliver_to`. */
  readonly deliverTo?: readonly string[];
  readonly ratePerMinute: number;
  readonly maxBodyBytes: number;
}

/** The hooks by name (look names up with {@link findHook}, never by indexing: `constructor` is a valid name). */
export type HooksConfig = Readonly<Record<string, HookConfig>>;

/** Maps a parsed `hooks:` section. Pure. */
export function toHooksConfig(parsed: HooksSection): HooksConfig {
  const hooks: Record<string, HookConfig> = Object.create(null) as Record<string, HookConfig>;
  for (const [name, hook] of Object.entries(parsed)) {
    hooks[name] = {
      name,
      secret: hook.secret,
      mode: hook.notify !== undefined ? 'notify' : 'prompt',
      text: hook.notify ?? hook.prompt ?? '',
      ...(hook.deliver_to ? { deliverTo: [...hook.deliver_to] } : {}),
      ratePerMinute: hook.rate_per_minute,
      maxBodyBytes: hook.max_body_kb * 1024,
    };
  }
  return hooks;
}

/** The hook called `name`, when one is configured (own entries only). */
export function findHook(hooks: HooksConfig, name: string): HookConfig | undefined {
  return Object.hasOwn(hooks, name) ? hooks[name] : undefined;
}

/** The hooks' secrets (for the redactor). */
export function hookSecrets(hooks: HooksConfig): string[] {
  return Object.values(hooks).map((hook) => hook.secret);
}
