import { join } from 'node:path';
import { registeredPlatforms } from '../../channels/channels-config.js';
import { extensionsDir, missingSdkPackages } from '../../channels/platform-sdk.js';
import { checkHomePermissions, ensureHome } from '../../config/home.js';
import { loadConfig, resolveEndpoints } from '../../config/load-config.js';
import type { WrenConfig } from '../../config/wren-config.js';
import { isLoopbackHost } from '../../gateway/gateway-token.js';
import { pickEmbeddingEndpoint } from '../../llm/embedding-endpoint.js';
import { testEndpoint } from '../../llm/test-endpoint.js';
import { checkHomeDatabase, checkVectorSupport, type VectorSupport } from '../../services/home-checks.js';
import { checkSandbox, resolveSandbox } from '../../tools/exec/sandbox.js';
import { plural } from '../plural.js';
import { EXIT } from '../report-failure.js';
import { sandboxCheck } from '../security-audit.js';
import { wren } from '../wren-command.js';
import { serviceCheck } from './service.js';

export interface DoctorCheck {
  /** Stable id scripts may match on, e.g. `home.permissions`. */
  id: string;
  status: 'ok' | 'warn' | 'fail';
  message: string;
  fix?: string;
}

function checkConfig(home: string, checks: DoctorCheck[]): WrenConfig | undefined {
  try {
    const config = loadConfig(home);
    checks.push({ id: 'config.valid', status: 'ok', message: `${config.file} is valid` });
    return config;
  } catch (error) {
    checks.push({ id: 'config.valid', status: 'fail', message: (error as Error).message });
    return undefined;
  }
}

/** The database's schema version beside the newest this Wren knows (an older one is upgraded at start). */
function schemaCheck(version: number, known: number): DoctorCheck {
  const id = 'database.schema';
  if (version === known) return { id, status: 'ok', message: `schema version ${version} (current)` };
  if (version === 0)
    return {
      id,
      status: 'ok',
      message: `new, empty database (schema version ${known} is created on first use)`,
    };
  return {
    id,
    status: 'warn',
    message: `schema version ${version}; this Wren upgrades it to ${known} at the next start, after copying it to backups/`,
    fix: 'wren start',
  };
}

function checkDatabase(home: string, checks: DoctorCheck[]): void {
  const path = join(home, 'wren.db');
  try {
    const { version, known } = checkHomeDatabase(home);
    checks.push({ id: 'database.ok', status: 'ok', message: `${path} passes quick_check` });
    checks.push(schemaCheck(version, known));
  } catch (error) {
    checks.push({ id: 'database.ok', status: 'fail', message: (error as Error).message });
  }
}

async function checkModels(config: WrenConfig, checks: DoctorCheck[]): Promise<void> {
  const endpoints = resolveEndpoints(config);
  if (endpoints.length === 0) {
    checks.push({
      id: 'models.configured',
      status: 'fail',
      message: 'no model is configured',
      fix: 'wren onboard',
    });
    return;
  }
  checks.push({ id: 'models.configured', status: 'ok', message: plural(endpoints.length, 'model endpoint') });
  const results = await Promise.all(endpoints.map((endpoint) => testEndpoint(endpoint)));
  results.forEach((result, index) => {
    const endpoint = endpoints[index]!;
    checks.push(
      result.ok
        ? {
            id: `models.reachable.${endpoint.name}`,
            status: 'ok',
            message: `${endpoint.name} answered in ${result.latencyMs} ms`,
          }
        : {
            id: `models.reachable.${endpoint.name}`,
            status: 'fail',
            message: `${endpoint.name}: ${result.error ?? 'failed'}`,
          },
    );
  });
}

/** Runs every check; read-only apart from creating a missing home. */
export async function collectChecks(home: string): Promise<DoctorCheck[]> {
  ensureHome(home);
  const checks: DoctorCheck[] = [];
  const findings = checkHomePermissions(home);
  if (findings.length === 0)
    checks.push({ id: 'home.permissions', status: 'ok', message: `${home} is private (0700/0600)` });
  for (const finding of findings) {
    checks.push({ id: 'home.permissions', status: 'fail', message: finding.message, fix: finding.fix });
  }
  const config = checkConfig(home, checks);
  checkDatabase(home, checks);
  const service = serviceCheck(home);
  if (service) checks.push(service);
  if (!config) return checks;
  const { host } = config.gateway;
  const tokenConfigured = Boolean(config.gateway.token ?? process.env['WREN_GATEWAY_TOKEN']);
  checks.push(
    isLoopbackHost(host) || tokenConfigured
      ? {
          id: 'gateway.exposure',
          status: 'ok',
          message: `gateway binds ${host}${isLoopbackHost(host) ? ' (loopback only)' : ' with a configured token'}`,
        }
      : {
          id: 'gateway.exposure',
          status: 'fail',
          message: `gateway.host is ${host} but no token is configured: \`wren start\` will refuse to run`,
          fix: 'set gateway.token: ${WREN_GATEWAY_TOKEN} in config.yaml, or gateway.host: 127.0.0.1',
        },
  );
  const exec = config.tools.exec;
  checks.push(
    sandboxCheck(
      'exec.sandbox',
      exec,
      resolveSandbox(exec.sandbox, exec.sandbox === 'none' ? undefined : await checkSandbox()),
    ),
  );
  checkChannels(home, config, checks);
  await checkSignalDaemon(config, checks);
  if (config.channels.matrix?.enabled) checks.push(MATRIX_ENCRYPTION);
  if (config.channels.whatsapp?.enabled) checks.push(await whatsappLinkCheck(home));
  await checkModels(config, checks);
  const search = memorySearchCheck(config);
  if (search) checks.push(search);
  return checks;
}

/**
 * With an embedding model configured: whether sqlite-vec loads, so memory search can use meaning as well as
 * keywords (warn when not: search still works, by keywords). Undefined without an embedding model.
 */
export function memorySearchCheck(
  config: WrenConfig,
  load: () => VectorSupport = checkVectorSupport,
): DoctorCheck | undefined {
  const endpoint = pickEmbeddingEndpoint(resolveEndpoints(config));
  if (!endpoint) return undefined;
  const support = load();
  return support.ok
    ? {
        id: 'memory.semantic_search',
        status: 'ok',
        message: `memory search uses keywords and meaning (${endpoint.name}, sqlite-vec ${support.version})`,
      }
    : {
        id: 'memory.semantic_search',
        status: 'warn',
        message: `sqlite-vec could not load (${support.reason}): memory search uses keywords only`,
        fix: 'reinstall Wren (npm ci) so sqlite-vec gets its build for this platform, or remove the embedding model',
      };
}

/**
 * Each configured chat channel: whether anyone can talk to Wren there (a channel with no owner, no
 * allow_from and no pairing answers nobody, silently) and whether it is switched on.
 */
function checkChannels(home: string, config: WrenConfig, checks: DoctorCheck[]): void {
  for (const [name, section] of Object.entries(config.channels)) {
    if (name === 'transcription' || !section || !('access' in section)) continue;
    const id = `channels.${name}`;
    if (!section.enabled) {
      checks.push({ id, status: 'warn', message: `${name} is configured but enabled: false` });
      continue;
    }
    const sdk = registeredPlatforms.find((platform) => platform.name === name)?.sdk;
    const missing = missingSdkPackages(sdk, extensionsDir(home));
    if (missing.length > 0) {
      checks.push({
        id,
        status: 'fail',
        message: `${name} is enabled but its SDK is not installed (${missing.join(', ')}): it will not start`,
        fix: `run \`${wren()} channels add ${name}\``,
      });
      continue;
    }
    const { owner, allowFrom, pairing } = section.access;
    checks.push(
      owner.length > 0
        ? {
            id,
            status: 'ok',
            message: `${name}: ${plural(owner.length, 'owner id')}${allowFrom.length ? `, ${allowFrom.length} more allowed` : ''}; starts with \`wren start\``,
          }
        : {
            id,
            status: 'warn',
            message: `${name} has no owner id${allowFrom.length || pairing ? '' : ' (and no allow_from or pairing): it will answer nobody'}`,
            fix: `set channels.${name}.owner to your id; with pairing: true, write to the bot and run \`wren pairing list\` to see it`,
          },
    );
  }
}

/** Said while Matrix is enabled: Wren has no end-to-end encryption, so an encrypted room reaches nobody. */
const MATRIX_ENCRYPTION: DoctorCheck = {
  id: 'channels.matrix.encryption',
  status: 'warn',
  message: 'Matrix: encrypted rooms are not supported; Wren ignores encrypted messages (each is logged)',
  fix: 'talk to Wren in an unencrypted direct chat (in Element, turn encryption off when creating it)',
};

/** With WhatsApp enabled: whether a linked session is stored, and opens with the home's key. */
async function whatsappLinkCheck(home: string): Promise<DoctorCheck> {
  const { probeWhatsAppSession } = await import('../../channels/whatsapp/whatsapp-probe.js');
  const session = probeWhatsAppSession(home);
  const id = 'channels.whatsapp.link';
  if (session.linked)
    return {
      id,
      status: 'ok',
      message: `WhatsApp is linked${session.number ? ` as ${session.number}` : ''}`,
    };
  return session.why === 'not-linked'
    ? {
        id,
        status: 'warn',
        message: 'WhatsApp is not linked yet: it will answer nobody',
        fix: `start Wren, then run \`${wren()} channels link whatsapp\` (or use Settings → Channels in the web app)`,
      }
    : {
        id,
        status: 'fail',
        message: 'the stored WhatsApp session does not open with WREN_SECRET_KEY (another .env?)',
        fix: `restore the .env that belongs to this database, or link again: \`${wren()} channels link whatsapp\``,
      };
}

/**
 * Signal runs through the owner's own signal-cli daemon: with `channels.signal` enabled, whether it answers
 * (its version), else how to start it. The probe is imported only then.
 */
async function checkSignalDaemon(config: WrenConfig, checks: DoctorCheck[]): Promise<void> {
  const signal = config.channels.signal;
  if (!signal?.enabled) return;
  const { probeSignal } = await import('../../channels/signal/signal-probe.js');
  const probe = await probeSignal(signal);
  checks.push(
    probe.ok
      ? {
          id: 'channels.signal.daemon',
          status: 'ok',
          message: `signal-cli ${probe.version} answers at ${signal.url}`,
        }
      : {
          id: 'channels.signal.daemon',
          status: 'fail',
          message: probe.message,
          fix: 'start signal-cli as a daemon (docs/channels.md#signal), or set channels.signal.url to where it listens',
        },
  );
}

/** `wren doctor`: exit 0 when nothing failed, 1 otherwise. */
export async function runDoctor(options: { home: string; json?: boolean }): Promise<number> {
  const checks = await collectChecks(options.home);
  const failed = checks.some((check) => check.status === 'fail');
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ ok: !failed, checks }, null, 2)}\n`);
  } else {
    for (const check of checks) {
      const mark = check.status === 'ok' ? '✓' : check.status === 'warn' ? '!' : '✗';
      process.stdout.write(
        `${mark} ${check.id.padEnd(24)} ${check.message}${check.fix ? `\n    fix: ${check.fix}` : ''}\n`,
      );
    }
  }
  return failed ? EXIT.failed : EXIT.ok;
}
