/**
 * Wren's benchmarks. Measures, never asserts: prints a table and writes bench/results/latest.json (ignored by
 * git). Every temporary home lives under one temp folder that is removed at the end.
 *   npm run bench
 * Figures: prompt tokens of "hi" in a fresh session with every feature on (prompt-tokens-bench), counted as
 * JSON the way a provider bills it; framework overhead per turn over HTTP (the real `wren start` process, a
 * fake OpenAI-compatible model on 127.0.0.1 speaking the real streaming wire format, minus the time the same
 * model call takes without Wren) and in-process; what /v1/chat/completions adds over /api/chat; cold start of
 * the real CLI to /api/health OK; idle RSS after start and after 1,000 turns; a 200-turn conversation; "hi"
 * with MCP servers; scheduler ticks with 1k–100k reminders and delivery lateness; the web app's first-load
 * size (gzipped); the production install size (`npm ci --omit=dev` in a clean copy, install-size-bench);
 * syncing a 5,000-event calendar (CalDAV on a real Radicale, and ICS) and watching a 50,000-message mailbox
 * on a real Dovecot (calendar-bench, mail-watch-bench).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createApp } from '../src/app/create-app.js';
import type { ChatModel, ModelEvent } from '../src/llm/types.js';
import { type FakeLlmServer, startFakeLlmServer } from '../test/fakes/fake-llm-server.js';
import { runCalendarBench } from './calendar-bench.js';
import { measureInstallSize } from './install-size-bench.js';
import { runMailWatchBench } from './mail-watch-bench.js';
import { runMcpBench } from './mcp-bench.js';
import { runMemoryBench } from './memory-bench.js';
import { measureOpenAiOverhead } from './openai-compat-bench.js';
import { helloTokens } from './prompt-tokens-bench.js';
import { runSchedulerBench } from './scheduler-bench.js';
import { measureWebBundle } from './web-bundle-bench.js';

const CLI = resolve('dist/cli/main.js');
/** The node flags `npm start` uses, so the gateway is measured as users run it. */
const START_FLAGS = (
  JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { start: string } }
).scripts.start
  .split(/\s+/)
  .filter((word) => word.startsWith('--'));
const TOKEN = 'bench-token-0123456789';
const ROOT = mkdtempSync(join(tmpdir(), 'wren-bench-'));
let homes = 0;

function home(config: string): string {
  const dir = join(ROOT, `home-${++homes}`);
  mkdirSync(dir, { mode: 0o700 });
  writeFileSync(join(dir, 'config.yaml'), config, { mode: 0o600 });
  return dir;
}

const modelConfig = (baseUrl: string) =>
  `models:\n  - name: main\n    protocol: openai\n    base_url: ${baseUrl}\n    model: fake-model\n`;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Framework overhead: an in-process model that answers at once, so the time is all Wren's. */
async function overhead(turns: number): Promise<{ p50: number; p99: number }> {
  const instant: ChatModel = {
    limits: () => ({ contextWindow: 128_000, maxOutputTokens: 4096 }),
    async *stream(): AsyncIterable<ModelEvent> {
      yield { type: 'text-delta', text: 'ok' };
      yield {
        type: 'done',
        result: { text: 'ok', toolCalls: [], stopReason: 'stop', usage: { inputTokens: 1, outputTokens: 1 } },
      };
    },
  };
  const app = await createApp({ home: home('{}\n'), model: instant });
  const times: number[] = [];
  try {
    for (let i = 0; i < turns + 20; i++) {
      const started = performance.now();
      await app.bus.request({
        id: `t${i}`,
        channel: 'cli',
        senderId: 'owner',
        fromOwner: true,
        chatId: 'bench',
        text: `message ${i}`,
      });
      if (i >= 20) times.push(performance.now() - started);
    }
  } finally {
    await app.close();
  }
  return { p50: percentile(times, 50), p99: percentile(times, 99) };
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(status.match(/VmRSS:\s+(\d+)/)![1]) / 1024;
}

async function waitHealthy(url: string, deadline: number): Promise<void> {
  for (;;) {
    try {
      if ((await fetch(`${url}/api/health`)).ok) return;
    } catch {}
    if (performance.now() > deadline) throw new Error('gateway did not become healthy');
    await new Promise((done) => setTimeout(done, 5));
  }
}

/** Spawns `wren start`; resolves with the process, its URL and the time until /api/health answered. */
async function startGateway(config: string) {
  const dir = home(config);
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const started = performance.now();
  const child = spawn(process.execPath, [...START_FLAGS, CLI, 'start', '--port', String(port)], {
    env: { PATH: process.env['PATH'], HOME: process.env['HOME'], WREN_HOME: dir, WREN_GATEWAY_TOKEN: TOKEN },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  await waitHealthy(url, started + 15_000);
  return { child, url, startMs: performance.now() - started };
}

async function coldStart(runs: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const { child, startMs } = await startGateway('{}\n');
    times.push(startMs);
    child.kill('SIGTERM');
    await new Promise((done) => child.on('exit', done));
  }
  return percentile(times, 50);
}

/** One streamed chat completion straight to the fake model: the wire cost Wren adds nothing to. */
async function directModelCall(llm: FakeLlmServer, text: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${llm.baseUrls.openai}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'fake-model',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: text }],
    }),
  });
  await response.arrayBuffer();
  return performance.now() - started;
}

/**
 * Framework overhead over HTTP: `POST /api/chat` to the real gateway process, which calls the fake model over
 * its real (streaming) wire format, minus the median of the same model call made directly. Sessions rotate
 * over 20, so history grows as in use.
 */
async function httpOverhead(turns: number) {
  const llm = await startFakeLlmServer();
  llm.setHandler(() => ({ text: 'ok' }));
  const { child, url } = await startGateway(modelConfig(llm.baseUrls.openai));
  const total: number[] = [];
  const direct: number[] = [];
  try {
    for (let i = 0; i < turns + 20; i++) {
      const started = performance.now();
      const response = await fetch(`${url}/api/chat`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ message: `message ${i}`, session: `s${i % 20}` }),
      });
      await response.arrayBuffer();
      const elapsed = performance.now() - started;
      const wire = await directModelCall(llm, `message ${i}`);
      if (i >= 20) {
        total.push(elapsed);
        direct.push(wire);
      }
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((done) => child.on('exit', done));
    await llm.close();
  }
  const model = percentile(direct, 50);
  return {
    p50: percentile(total, 50) - model,
    p99: percentile(total, 99) - model,
    totalP50: percentile(total, 50),
    modelCallP50: model,
  };
}

/** The OpenAI-compatible endpoint against `/api/chat`: the same turns on one real gateway (openai-compat-bench). */
async function openAiOverhead(turns: number) {
  const llm = await startFakeLlmServer();
  llm.setHandler(() => ({ text: 'ok' }));
  const { child, url } = await startGateway(modelConfig(llm.baseUrls.openai));
  try {
    return await measureOpenAiOverhead({ url, token: TOKEN, turns });
  } finally {
    child.kill('SIGTERM');
    await new Promise((done) => child.on('exit', done));
    await llm.close();
  }
}

/** How long the gateway is left quiet before its idle RSS is read. */
const IDLE_MS = 15_000;

async function memory(turns: number) {
  const llm = await startFakeLlmServer();
  const { child, url } = await startGateway(modelConfig(llm.baseUrls.openai));
  await new Promise((done) => setTimeout(done, 1500));
  const afterStart = rssMb(child.pid!);
  const samples: number[] = [];
  for (let i = 0; i < turns; i++) {
    const response = await fetch(`${url}/api/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: `turn ${i}`, session: `s${i % 20}` }),
    });
    await response.arrayBuffer();
    if ((i + 1) % 250 === 0) samples.push(rssMb(child.pid!));
  }
  await new Promise((done) => setTimeout(done, 1500));
  const afterTurns = rssMb(child.pid!);
  // What an idle gateway holds: V8 shrinks the heap only after several seconds without allocation (its
  // memory reducer), so 1.5 s after the last turn still counts garbage not yet given back.
  await new Promise((done) => setTimeout(done, IDLE_MS - 1500));
  const idle = rssMb(child.pid!);
  const status = (await (
    await fetch(`${url}/api/status`, { headers: { authorization: `Bearer ${TOKEN}` } })
  ).json()) as {
    memoryMb: Record<string, number>;
  };
  console.log('gateway memory after turns (MB):', status.memoryMb);
  child.kill('SIGTERM');
  await new Promise((done) => child.on('exit', done));
  await llm.close();
  return { afterStart, afterTurns, idle, samples };
}

let hi: Awaited<ReturnType<typeof helloTokens>>;
let http: Awaited<ReturnType<typeof httpOverhead>>;
let openai: Awaited<ReturnType<typeof openAiOverhead>>;
let perTurn: Awaited<ReturnType<typeof overhead>>;
let start: number;
let rss: Awaited<ReturnType<typeof memory>>;
let conversation: Awaited<ReturnType<typeof runMemoryBench>>;
let mcp: Awaited<ReturnType<typeof runMcpBench>>;
let scheduler: Awaited<ReturnType<typeof runSchedulerBench>>;
let calendar: Awaited<ReturnType<typeof runCalendarBench>>;
let mail: Awaited<ReturnType<typeof runMailWatchBench>>;
const web = measureWebBundle();
const install = measureInstallSize();
try {
  hi = await helloTokens(ROOT);
  http = await httpOverhead(200);
  openai = await openAiOverhead(200);
  perTurn = await overhead(200);
  start = await coldStart(5);
  rss = await memory(1000);
  conversation = await runMemoryBench(200);
  mcp = await runMcpBench();
  scheduler = await runSchedulerBench();
  calendar = await runCalendarBench();
  mail = await runMailWatchBench();
} finally {
  rmSync(ROOT, { recursive: true, force: true });
}
const results = {
  date: new Date().toISOString(),
  node: process.version,
  helloPromptTokens: hi,
  overheadHttpMs: http,
  openAiOverheadMs: openai,
  overheadMs: perTurn,
  coldStartMs: start,
  idleRssMb: rss,
  memory: { ...conversation },
  mcp,
  scheduler,
  calendar,
  mailWatch: mail,
  webBundle: web,
  installSize: install,
};
mkdirSync('bench/results', { recursive: true });
writeFileSync('bench/results/latest.json', `${JSON.stringify(results, null, 2)}\n`);
const row = (name: string, value: string, target: string) =>
  console.log(`${name.padEnd(34)} ${value.padEnd(28)} ${target}`);
row('figure', 'measured', 'target');
row(
  '"hi" prompt tokens, every feature on',
  `${hi.json} as JSON (older count ${hi.tokens}: system ${hi.system}, ${hi.toolCount} tools ${hi.tools}, catalogue ${hi.catalogue})`,
  '≤ 1,300 as JSON',
);
row(
  '"hi" if every schema were sent',
  `${hi.everySchema} (${hi.allTools} tools; use_tools saves the rest)`,
  '—',
);
row(
  'overhead per turn over HTTP',
  `p50 ${http.p50.toFixed(1)} ms, p99 ${http.p99.toFixed(1)} ms`,
  'p50 < 10 ms',
);
row(
  '  (round trip; model call alone)',
  `p50 ${http.totalP50.toFixed(1)} ms; ${http.modelCallP50.toFixed(1)} ms`,
  '—',
);
row(
  'OpenAI-compatible endpoint overhead vs /api/chat',
  `p50 ${openai.p50.toFixed(1)} ms (${openai.openAiP50.toFixed(1)} vs ${openai.apiChatP50.toFixed(1)} ms)`,
  'p50 ≤ 5 ms',
);
row(
  'overhead per turn in-process',
  `p50 ${perTurn.p50.toFixed(2)} ms, p99 ${perTurn.p99.toFixed(2)} ms`,
  '—',
);
row('cold start of `wren start` to /api/health', `${start.toFixed(0)} ms (median of 5)`, '< 1,000 ms');
row('idle RSS after start', `${rss.afterStart.toFixed(1)} MB`, '< 120 MB');
row(
  'RSS 1.5 s after 1,000 turns',
  `${rss.afterTurns.toFixed(1)} MB (${rss.samples.map((v) => v.toFixed(0)).join(' → ')})`,
  'flat',
);
row(`idle RSS after 1,000 turns (${IDLE_MS / 1000} s quiet)`, `${rss.idle.toFixed(1)} MB`, '≤ 110 MB');
const perTurn200 = conversation.tokensPerTurn;
const at = (turn: number) => perTurn200[turn - 1] ?? 0;
row(
  'prompt tokens per turn (200 turns)',
  `1:${at(1)} 50:${at(50)} 100:${at(100)} 200:${at(200)} max ${Math.max(...perTurn200)}`,
  'plateau',
);
row(
  'consolidation cost',
  `${conversation.consolidationTokensPerTurn.toFixed(0)} tokens per consolidated turn`,
  '—',
);
row(
  'MEMORY.md after 200 turns → Dream',
  `${conversation.memoryChars.before} → ${conversation.memoryChars.after} chars (${conversation.memoryFacts.before} → ${conversation.memoryFacts.after} facts), ${conversation.dream.tokens} tokens in ${conversation.dream.calls} call${conversation.dream.calls === 1 ? '' : 's'}`,
  `≤ ${conversation.memoryChars.budget} chars`,
);
row(
  '"hi" with 10 MCP servers',
  `${mcp.ten.tokens} vs ${mcp.none.tokens} (+${mcp.overheadPercent.toFixed(1)} %)`,
  '< +10 %',
);
const signed = (value: number) => `${value < 0 ? '−' : '+'}${Math.abs(value).toFixed(1)}`;
for (const tick of scheduler.ticks) {
  row(
    `scheduler tick, ${tick.reminders.toLocaleString('en')} reminders`,
    `idle p50 ${tick.idleP50Ms.toFixed(2)} ms, p99 ${tick.idleP99Ms.toFixed(2)} ms; 100 due ${tick.claim100Ms.toFixed(1)} ms`,
    'idle < 5 ms, flat',
  );
}
row(
  '100k reminders: memory',
  `heap ${signed(scheduler.heapGrowthMb)} MB, RSS ${signed(scheduler.rssGrowthMb)} MB after filling it, db ${scheduler.dbFileMb.toFixed(1)} MB`,
  '—',
);
row(
  'delivery lateness (real timers)',
  `p50 ${scheduler.lateness.p50Ms} ms, p99 ${scheduler.lateness.p99Ms} ms, max ${scheduler.lateness.maxMs} ms (${scheduler.lateness.count})`,
  '< 1 s',
);
const sync = (f: { ms: number; cpuMs: number; requests: number; peakRssMb: number }) =>
  `${f.ms.toFixed(0)} ms (${f.cpuMs.toFixed(0)} ms CPU), ${f.requests} req, RSS +${f.peakRssMb.toFixed(0)} MB`;
row(
  `calendar ${calendar.events.toLocaleString('en')} events, ICS (${(calendar.ics.bytes / 1024).toFixed(0)} KB)`,
  `first ${sync(calendar.ics.first)}; unchanged ${sync(calendar.ics.unchanged)}`,
  '—',
);
if (calendar.caldav)
  row(
    `calendar ${calendar.events.toLocaleString('en')} events, CalDAV`,
    `first ${sync(calendar.caldav.first)}; unchanged ${sync(calendar.caldav.unchanged)}; one changed ${sync(calendar.caldav.oneChanged)}`,
    'unchanged: 1 req',
  );
else row('calendar, CalDAV', `not run: ${calendar.caldavSkipped}`, '—');
if ('skipped' in mail) row('mail watch, 50,000 messages', `not run: ${mail.skipped}`, '—');
else
  row(
    `mail watch, ${mail.messages.toLocaleString('en')} messages`,
    `first look ${mail.firstLook.ms.toFixed(0)} ms (${mail.firstLook.cpuMs.toFixed(0)} ms CPU); ${mail.catchUp.mails} arrived while off: ${mail.catchUp.ms.toFixed(0)} ms (${mail.catchUp.cpuMs.toFixed(0)} ms CPU), ${mail.catchUp.triggers} triggers, RSS +${mail.catchUp.peakRssMb.toFixed(0)} MB (Dovecot indexing ${mail.serverIndexMs.toFixed(0)} ms)`,
    '—',
  );
row(
  'web app first load',
  `${web.firstLoadGzipKb} KB gzipped (${web.firstLoadKb} KB raw; ${web.files} files, ${web.totalKb} KB in all)`,
  '< 100 KB gzipped',
);
row(
  'production install size',
  `${install.totalMb} MB, ${install.packages} packages (+ ${install.nativeAddonMb} MB native addon)`,
  '≤ 150 MB',
);
row(
  '  largest packages (MB)',
  install.top
    .slice(0, 5)
    .map(({ name, mb }) => `${name} ${mb}`)
    .join(', '),
  '—',
);
