import type { Command } from 'commander';
import type { VaultBindings, VaultEntry, VaultService } from '../../vault/vault-service.js';
import { EXIT, reportFailure } from '../report-failure.js';
import { withServices } from '../with-services.js';

/** Where the vault commands read and write (the process's streams, or buffers in tests). */
export interface VaultCommandIo {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: Pick<NodeJS.WritableStream, 'write'>;
  stderr: Pick<NodeJS.WritableStream, 'write'>;
}

const defaultIo = (): VaultCommandIo => ({
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
});

/** The home's vault for one command (the CLI has no redactor to teach: the running Wren learns on use). */
async function withVault<T>(home: string, work: (vault: VaultService) => T | Promise<T>): Promise<T> {
  const { createHomeVault } = await import('../../vault/vault-service.js');
  return withServices(home, (_services, opened) =>
    work(
      createHomeVault({
        home,
        env: process.env,
        stores: opened.stores(),
        redactor: { add() {}, remove() {} },
      }),
    ),
  );
}

function describeBindings(bindings: VaultBindings): string {
  const parts = [
    bindings.hosts?.length ? `hosts ${bindings.hosts.join(', ')}` : '',
    bindings.programs?.length ? `programs ${bindings.programs.join(', ')}` : '',
    bindings.mcp?.length ? `MCP ${bindings.mcp.join(', ')}` : '',
  ].filter(Boolean);
  return parts.join('; ') || 'nowhere (every use asks)';
}

const time = (ms: number | undefined) =>
  ms === undefined ? 'never' : new Date(ms).toISOString().replace('T', ' ').slice(0, 16);

/** The value from a hidden prompt on a terminal, else all of stdin without its final line break. */
async function readValue(name: string, io: VaultCommandIo): Promise<string | undefined> {
  if (io.stdin.isTTY) {
    const prompts = await import('@clack/prompts');
    const value = await prompts.password({ message: `Value of ${name} (not shown)` });
    return prompts.isCancel(value) ? undefined : value;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

export interface VaultSetOptions {
  home: string;
  name: string;
  /** Anything after NAME on the command line: refused (argv ends up in shell history and `ps`). */
  extra?: string[];
  host?: string[];
  program?: string[];
  mcp?: string[];
}

/** `wren vault set NAME`: 0 stored, 2 a value on the command line, a bad name or value, 1 otherwise. */
export async function runVaultSet(options: VaultSetOptions, io = defaultIo()): Promise<number> {
  if (options.extra?.length) {
    io.stderr.write(
      `wren: the value is never taken from the command line (it would stay in your shell history and the process list); run \`wren vault set ${options.name}\` and type it at the prompt, or pipe it in: \`printf %s "$VALUE" | wren vault set ${options.name}\`\n`,
    );
    return EXIT.usage;
  }
  const { checkVaultInput, VaultError } = await import('../../vault/vault-service.js');
  try {
    checkVaultInput(options.name);
    const value = await readValue(options.name, io);
    if (value === undefined || value === '') {
      io.stderr.write('wren: no value given; nothing was stored\n');
      return EXIT.usage;
    }
    const bindings = { hosts: options.host ?? [], programs: options.program ?? [], mcp: options.mcp ?? [] };
    const entry = await withVault(options.home, (vault) => vault.set(options.name, value, bindings));
    io.stdout.write(
      `Stored ${entry.name}, bound to ${describeBindings(entry.bindings)}. Tools use it as {{vault:${entry.name}}} (exec env, web_fetch headers, MCP arguments); the model never sees the value.\n`,
    );
    return EXIT.ok;
  } catch (error) {
    if (error instanceof VaultError) {
      io.stderr.write(`wren: ${error.message}\n`);
      return EXIT.usage;
    }
    return reportFailure(error);
  }
}

/** `wren vault list`: names, bindings and times; never a value. */
export async function runVaultList(
  options: { home: string; json?: boolean },
  io = defaultIo(),
): Promise<number> {
  const entries: VaultEntry[] = await withVault(options.home, (vault) => vault.list());
  if (options.json) {
    io.stdout.write(`${JSON.stringify({ secrets: entries }, null, 2)}\n`);
    return EXIT.ok;
  }
  if (entries.length === 0) {
    io.stdout.write('The vault is empty. `wren vault set NAME --host api.example.com` stores a secret.\n');
    return EXIT.ok;
  }
  for (const entry of entries)
    io.stdout.write(
      `${entry.name}  bound to ${describeBindings(entry.bindings)}  updated ${time(entry.updatedAt)}  used ${time(entry.usedAt)}\n`,
    );
  return EXIT.ok;
}

/** `wren vault rm NAME`: 0 removed, 1 when there is no such secret. */
export async function runVaultRemove(
  options: { home: string; name: string },
  io = defaultIo(),
): Promise<number> {
  const removed = await withVault(options.home, (vault) => vault.remove(options.name));
  if (!removed) {
    io.stderr.write(`wren: no vault secret named ${options.name}; \`wren vault list\` shows them\n`);
    return EXIT.failed;
  }
  io.stdout.write(`Removed ${options.name}.\n`);
  return EXIT.ok;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

const PLACES = {
  environment: 'the environment (WREN_SECRET_KEY)',
  '.env': '.env (mode 0600)',
  keyring: 'the OS keyring',
};

/**
 * `wren vault key [--to keyring|env]`: where the sealing key lives, or moves it. Exit 0, 1 when the move
 * failed (no keyring, the key set in the environment, the keyring refused), 2 for a bad `--to`.
 */
export async function runVaultKey(options: {
  home: string;
  to?: string;
  env?: NodeJS.ProcessEnv;
  io?: Pick<VaultCommandIo, 'stdout' | 'stderr'>;
}): Promise<number> {
  const io = options.io ?? defaultIo();
  const env = options.env ?? process.env;
  const { moveSecretKey, secretKeyPlace } = await import('../../config/secret-key.js');
  if (options.to !== undefined) {
    if (options.to !== 'keyring' && options.to !== 'env') {
      io.stderr.write('wren: --to takes keyring or env\n');
      return EXIT.usage;
    }
    try {
      moveSecretKey(options.home, options.to, env);
    } catch (error) {
      io.stderr.write(`wren: ${(error as Error).message}\n`);
      return EXIT.failed;
    }
  }
  const { place, keyring } = secretKeyPlace(options.home, env);
  io.stdout.write(
    `${place ? `The key that seals the vault is in ${PLACES[place]}.` : 'No key yet: the first secret makes one in .env.'}\n`,
  );
  io.stdout.write(
    keyring
      ? place === 'keyring'
        ? 'Back it up: a copy of wren.db cannot be opened without it (`wren vault key --to env` puts it back in .env).\n'
        : `This machine has a keyring (${keyring}): \`wren vault key --to keyring\` moves the key there, out of .env.\n`
      : 'This machine has no OS keyring Wren can use (secret-tool on Linux, security on macOS).\n',
  );
  return EXIT.ok;
}

/** `wren vault set|list|rm|key`. */
export function registerVaultCommands(program: Command, home: () => string): void {
  const group = program
    .command('vault')
    .description(
      'secrets tools use as {{vault:NAME}} without the model ever seeing them: set, list, rm, key',
    );
  group
    .command('set <name> [value...]')
    .description(
      'store a secret (read from a hidden prompt, or from stdin when piped; never from the command line) and where it may go',
    )
    .option(
      '--host <host>',
      'a host HTTP requests carrying it may go to (repeat; *.example.com allowed)',
      collect,
    )
    .option('--program <program>', 'a program exec may pass it to (repeat)', collect)
    .option('--mcp <server>', 'an MCP server whose tool arguments may hold it (repeat)', collect)
    .action(
      async (
        name: string,
        extra: string[],
        options: { host?: string[]; program?: string[]; mcp?: string[] },
      ) => {
        process.exitCode = await runVaultSet({ home: home(), name, extra, ...options });
      },
    );
  group
    .command('list', { isDefault: true })
    .description('the secrets by name, with where each may go and when it was last used (never values)')
    .option('--json', 'machine-readable output')
    .action(async (options: { json?: boolean }) => {
      process.exitCode = await runVaultList({ home: home(), ...options });
    });
  group
    .command('key')
    .description('where the key that seals the vault lives; --to keyring|env moves it')
    .option('--to <place>', 'keyring (the OS keyring) or env (<home>/.env)')
    .action(async (options: { to?: string }) => {
      process.exitCode = await runVaultKey({ home: home(), ...(options.to ? { to: options.to } : {}) });
    });
  group
    .command('rm <name>')
    .description('remove a secret')
    .action(async (name: string) => {
      process.exitCode = await runVaultRemove({ home: home(), name });
    });
}
