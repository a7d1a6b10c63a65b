// Writes the cl100k tokenizer next to the built token estimator (dist/llm/), so the installed package needs
// no tokenizer dependency at run time (gpt-tokenizer is a devDependency: its 29 MB hold every encoding in
// three module formats; Wren uses one encoding and the 45 kB encoder core). Run by `npm run build`.
// - cl100k_base.ranks.json: the BPE ranks as JSON. Loading 1 MB of JSON costs about 20 MB less memory than
//   requiring the same table as a JavaScript array literal (whose source and bytecode stay resident), which is
//   what keeps the gateway's idle RSS low.
// - gpt-encoding.cjs: gpt-tokenizer's own GptEncoding (the same code, so the same counts), bundled by esbuild
//   into one CommonJS file the estimator can require synchronously.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { buildSync } from 'esbuild';

const require = createRequire(import.meta.url);
const ranks = require('gpt-tokenizer/cjs/bpeRanks/cl100k_base').default;
const { version, license } = JSON.parse(readFileSync(require.resolve('gpt-tokenizer/package.json'), 'utf8'));
mkdirSync(new URL('../dist/llm/', import.meta.url), { recursive: true });
writeFileSync(new URL('../dist/llm/cl100k_base.ranks.json', import.meta.url), JSON.stringify(ranks));
buildSync({
  entryPoints: [require.resolve('gpt-tokenizer/cjs/GptEncoding')],
  outfile: new URL('../dist/llm/gpt-encoding.cjs', import.meta.url).pathname,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  banner: {
    js: `// gpt-tokenizer ${version} (${license} licence): its GptEncoding, bundled by scripts/build-ranks.mjs.`,
  },
  logLevel: 'warning',
});
