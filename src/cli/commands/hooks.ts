import type { Command } from 'commander';
import { findHook, type HookConfig, type HooksConfig } from '../../config/hooks-config.js';
import type { WrenConfig } from '../../config/wren-config.js';
import { templatePaths } from '../../hooks/render-template.js';
import { signBody } from '../../hooks/verify-hook-auth.js';
import { EXIT } from '../report-failure.js';

const out = (text: string) => process.stdout.write(`${text}\n`);

/** The gateway's base URL as config.yaml sets it (a wildcard address is reached on loopback). */
export function gatewayBase(config: WrenConfig): string {
  const { host, port } = config.gateway;
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `http://${shown}:${port}`;
}

/** A row of `wren hooks list`: never the secret. */
export interface HookListing {
  name: string;
  mode: HookConfig['mode'];
  deliverTo: readonly string[];
  url: string;
  ratePerMinute: number;
  maxBodyKb: number;
}

export function hookListings(hooks: HooksConfig, base: string, defaults: readonly string[]): HookListing[] {
  return Object.values(hooks).map((hook) => ({
    name: hook.name,
    mode: hook.mode,
    deliverTo: hook.deliverTo ?? defaults,
    url: `${base}/hooks/${hook.name}`,
    ratePerMinute: hook.ratePerMinute,
    maxBodyKb: Math.round(hook.maxBodyBytes / 1024),
  }));
}

/** A body for `wren hooks test`: every path a notify template names filled with a sample value. */
export function sampleBody(hook: HookConfig): string {
  if (hook.mode === 'prompt')
    return JSON.stringify({ test: true, message: `A test delivery to ${hook.name}` });
  // Null-prototype nodes: a path naming `__proto__` makes a key, never a prototype.
  const node0 = () => Object.create(null) as Record<string, unknown>;
  const root = node0();
  for (const path of templatePaths(hook.text)) {
    const names = path.split('.');
    const last = names.pop()!;
    let node = root;
    for (const name of names) {
      const next = Object.hasOwn(node, name) ? node[name] : undefined;
      if (typeof next !== 'object' || next === null) node[name] = node0();
      node = node[name] as Record<string, unknown>;
    }
    if (!Object.hasOwn(node, last)) node[last] = `sample ${path}`;
  }
  return JSON.stringify(root);
}

/** `'text'` for a POSIX shell. */
const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/**
 * A ready curl line for `hook`: the sample body signed with the hook's secret (`X-Wren-Signature`) and a fresh
 * delivery id, so each test runs once. The secret itself is never printed — only the signature of this body.
 */
export function curlLine(hook: HookConfig, url: string, body: string, deliveryId: string): string {
  return [
    `curl -i -X POST ${shellQuote(url)}`,
    `-H 'Content-Type: application/json'`,
    `-H ${shellQuote(`X-Wren-Delivery: ${deliveryId}`)}`,
    `-H ${shellQuote(`X-Wren-Signature: ${signBody(hook.secret, body)}`)}`,
    `--data-binary ${shellQuote(body)}`,
  ].join(' \\\n  ');
}

async function readConfig(home: string): Promise<WrenConfig | undefined> {
  const { loadConfig } = await import('../../config/load-config.js');
  const { reportFailure } = await import('../report-failure.js');
  try {
    return loadConfig(home);
  } catch (error) {
    process.exitCode = reportFailure(error);
    return undefined;
  }
}

/**
 * Registers `wren hooks list|test NAME`: the inbound webhooks of config.yaml (`hooks:`), their URLs, and a
 * signed curl line to try one. Works whether or not `wren start` runs. Exit codes: 0 ok, 1 no such hook,
 * 2 invalid config.
 */
export function registerHookCommands(program: Command, home: () => string): void {
  const group = program.command('hooks').description('inbound webhooks of config.yaml: list, test');
  group
    .command('list', { isDefault: true })
    .description('the hooks with their mode, targets and URL')
    .option('--url <base>', 'the address senders reach the gateway at (default: from gateway.host/port)')
    .option('--json', 'print JSON')
    .action(async (options: { url?: string; json?: boolean }) => {
      const config = await readConfig(home());
      if (!config) return;
      const base = (options.url ?? gatewayBase(config)).replace(/\/+$/, '');
      const hooks = hookListings(config.hooks, base, config.proactive.deliverTo);
      if (options.json) out(JSON.stringify(hooks, null, 2));
      else if (hooks.length === 0) out(`No hooks. Add them under hooks: in ${config.file}.`);
      else
        for (const hook of hooks)
          out(
            `${hook.name}  ${hook.mode}  → ${hook.deliverTo.join(', ') || 'feed only'}  ${hook.url}  ` +
              `(${hook.ratePerMinute}/min, ${hook.maxBodyKb} kB)`,
          );
    });
  group
    .command('test <name>')
    .description('print a curl line that sends a signed sample delivery to the hook')
    .option('--url <base>', 'the address senders reach the gateway at (default: from gateway.host/port)')
    .option('--body <json>', 'the body to send (default: a sample that fills the template)')
    .action(async (name: string, options: { url?: string; body?: string }) => {
      const config = await readConfig(home());
      if (!config) return;
      const hook = findHook(config.hooks, name);
      if (!hook) {
        const known = Object.keys(config.hooks).join(', ') || 'none';
        process.stderr.write(`wren: no hook "${name}" in ${config.file} (configured: ${known})\n`);
        process.exitCode = EXIT.failed;
        return;
      }
      const base = (options.url ?? gatewayBase(config)).replace(/\/+$/, '');
      const body = options.body ?? sampleBody(hook);
      out(curlLine(hook, `${base}/hooks/${hook.name}`, body, `test-${Date.now()}`));
    });
}
