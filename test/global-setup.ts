import { execFileSync } from 'node:child_process';

/**
 * End-to-end tests run the built CLI (`dist/`) and the built web app (`dist/web`): build both once first.
 * `WREN_TEST_SKIP_BUILD=1` skips the build for a focused run of unit tests while `dist/` is known to be current
 * (several people working in one tree at once); `npm test` and CI never set it.
 */
export default function setup(): void {
  if (process.env['WREN_TEST_SKIP_BUILD'] === '1') return;
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    stdio: 'inherit',
  });
  execFileSync(process.execPath, ['scripts/build-ranks.mjs'], { stdio: 'inherit' });
  execFileSync(
    process.execPath,
    ['node_modules/vite/bin/vite.js', 'build', '--config', 'web/vite.config.ts', '--logLevel', 'warn'],
    // vitest sets NODE_ENV=test, which would make Vite build a development bundle (no service worker).
    { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } },
  );
}
