// npm's `prepare`: builds the clone after `npm ci` / `npm install` (and before `npm pack`). One case builds
// nothing: `npx wren` (npm exec) run in a clone installs the clone itself into npx's cache as a link, which
// runs `prepare` again — a silent 15-80 s rebuild that rewrites dist/ under a running gateway. When a build
// is already there, that run leaves it alone (the clone's own `./wren` is the fast way to run the CLI).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const built = existsSync(new URL('../dist/cli/main.js', import.meta.url));
if (process.env['npm_command'] === 'exec' && built) {
  process.stderr.write('wren: dist/ is already built; not rebuilding it for npx (run ./wren instead)\n');
  process.exit(0);
}
const npm = process.env['npm_execpath'];
const result = npm
  ? spawnSync(process.execPath, [npm, 'run', 'build'], { stdio: 'inherit' })
  : spawnSync('npm', ['run', 'build'], { stdio: 'inherit', shell: process.platform === 'win32' });
process.exit(result.status ?? 1);
