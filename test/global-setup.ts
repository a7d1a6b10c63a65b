import { execFileSync } from 'node:child_process';

/** End-to-end tests run the built CLI (`dist/`) and the built web app (`dist/web`): build both once first. */
export default function setup(): void {
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
