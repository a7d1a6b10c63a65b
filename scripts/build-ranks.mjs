// Writes the cl100k BPE ranks next to the built token estimator as JSON. Loading 1 MB of JSON costs about
// 20 MB less memory than requiring the same table as a JavaScript array literal (whose source and bytecode
// stay resident), which is what keeps the gateway's idle RSS low. Run by `npm run build`.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const ranks = require('gpt-tokenizer/cjs/bpeRanks/cl100k_base').default;
mkdirSync(new URL('../dist/llm/', import.meta.url), { recursive: true });
writeFileSync(new URL('../dist/llm/cl100k_base.ranks.json', import.meta.url), JSON.stringify(ranks));
