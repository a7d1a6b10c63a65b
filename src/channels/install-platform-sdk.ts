import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { missingSdkPackages } from './platform-sdk.js';

export interface SdkInstallOptions {
  /** The extensions folder (`<home>/extensions`). */
  dir: string;
  /** Package name → exact version (a platform descriptor's `sdk`). */
  packages: Readonly<Record<string, string>>;
  /** npm's environment (registry, proxy and cache settings come from it and the owner's .npmrc). */
  env?: NodeJS.ProcessEnv;
  /** The npm to run; default: the one installed beside this Node, else `npm` on PATH. */
  npm?: string;
}

export type SdkInstallResult =
  | { ok: true; installed: string[] }
  | { ok: false; error: string; command: string };

/** The npm that ships with the running Node (so a PATH without npm still works), else `npm`. */
function defaultNpm(): string {
  const beside = join(dirname(process.execPath), process.platform === 'win32' ? 'npm.cmd' : 'npm');
  return existsSync(beside) ? beside : 'npm';
}

/** The folder npm installs into: its own package.json, so npm never walks up into another project. */
function prepareFolder(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const manifest = join(dir, 'package.json');
  if (!existsSync(manifest))
    writeFileSync(
      manifest,
      `${JSON.stringify({ name: 'wren-extensions', private: true, description: 'Platform SDKs installed by `wren channels add`' }, null, 2)}\n`,
      { mode: 0o600 },
    );
}

/**
 * Installs the pinned SDK packages into the extensions folder with npm, showing npm's own output on this
 * terminal (its progress on a long download). Production dependencies only, exact versions, no install
 * scripts (none of these SDKs needs one, and a script is code run with the owner's rights). Resolves with
 * what is now loadable, or the error and the command to run by hand; never throws.
 */
export async function installPlatformSdk(options: SdkInstallOptions): Promise<SdkInstallResult> {
  const specs = Object.entries(options.packages).map(([name, version]) => `${name}@${version}`);
  const args = [
    'install',
    '--prefix',
    options.dir,
    '--omit=dev',
    '--save-exact',
    '--ignore-scripts',
    '--no-audit',
    '--no-fund',
    ...specs,
  ];
  const command = `npm ${args.map((arg) => (/[\s"'$]/.test(arg) ? JSON.stringify(arg) : arg)).join(' ')}`;
  try {
    prepareFolder(options.dir);
  } catch (error) {
    return { ok: false, error: `cannot create ${options.dir}: ${(error as Error).message}`, command };
  }
  const npm = options.npm ?? defaultNpm();
  const code = await new Promise<number | string>((done) => {
    const child = spawn(npm, args, {
      cwd: options.dir,
      env: options.env ?? process.env,
      stdio: ['ignore', 'inherit', 'inherit'],
      shell: process.platform === 'win32',
    });
    child.once('error', (error) => done((error as NodeJS.ErrnoException).code ?? error.message));
    child.once('exit', (status, signal) => done(status ?? `killed by ${signal}`));
  });
  if (code === 'ENOENT') return { ok: false, error: `npm was not found (looked for ${npm})`, command };
  if (code !== 0) return { ok: false, error: `npm install failed (${code})`, command };
  const missing = missingSdkPackages(options.packages, options.dir);
  if (missing.length > 0)
    return { ok: false, error: `npm finished, but ${missing.join(', ')} still cannot be loaded`, command };
  return { ok: true, installed: specs };
}
