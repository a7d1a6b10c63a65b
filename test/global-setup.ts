import { execFileSync } from 'node:child_process';

/** End-to-end tests run the built CLI (`dist/`), so build it once before any test file runs. */
export default function setup(): void {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    stdio: 'inherit',
  });
  execFileSync(process.execPath, ['scripts/build-ranks.mjs'], { stdio: 'inherit' });
}
