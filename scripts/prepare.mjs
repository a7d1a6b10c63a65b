// npm's `prepare`: builds the clone after `npm ci` / `npm install`. It builds nothing in three cases:
// - `npm pack` / `npm publish`: `prepack` has just built (npm runs prepack, then prepare), so once is enough;
// - an installed package (no sources beside this script, e.g. `npm rebuild` in a global install): dist/ came
//   in the tarball and the dev tools a build needs are not installed;
// - `npx wren` (npm exec) run in a clone installs the clone itself into npx's cache as a link, which runs
//   `prepare` again — a silent 15-80 s rebuild that rewrites dist/ under a running gateway. When a build is
//   already there, that run leaves it alone (the clone's own `./wren` is the fast way to run the CLI).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const command = process.env['npm_command'];
if (command === 'pack' || command === 'publish') process.exit(0);
const built = existsSync(new URL('../dist/cli/main.js', import.meta.url));
const clone = existsSync(new URL('../tsconfig.build.json', import.meta.url));
if (!clone) {
  if (built) process.exit(0);
  process.stderr.write('wren: this package has no dist/ and no sources to build it from; reinstall it\n');
  process.exit(1);
}
if (command === 'exec' && built) {
  process.stderr.write('wren: dist/ is already built; not rebuilding it for npx (run ./wren instead)\n');
  process.exit(0);
}
const npm = process.env['npm_execpath'];
const result = npm
  ? spawnSync(process.execPath, [npm, 'run', 'build'], { stdio: 'inherit' })
  : spawnSync('npm', ['run', 'build'], { stdio: 'inherit', shell: process.platform === 'win32' });
process.exit(result.status ?? 1);
