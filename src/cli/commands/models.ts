import { ensureHome } from '../../config/home.js';
import { loadConfig, resolveEndpoints } from '../../config/load-config.js';
import { PROVIDER_PRESETS } from '../../llm/provider-presets.js';
import { testEndpoint } from '../../llm/test-endpoint.js';
import { EXIT } from '../report-failure.js';
import { wren } from '../wren-command.js';

const out = (line: string) => process.stdout.write(`${line}\n`);

/** `wren models`: the configured endpoints and the presets a config may name. */
export async function runModelsList(options: { home: string }): Promise<number> {
  ensureHome(options.home);
  const endpoints = resolveEndpoints(loadConfig(options.home));
  if (endpoints.length === 0) out(`No models configured (run \`${wren()} onboard\`).`);
  for (const endpoint of endpoints) {
    out(
      `${endpoint.name.padEnd(16)} ${endpoint.protocol.padEnd(9)} ${endpoint.model} @ ${endpoint.baseUrl}  tags: ${endpoint.tags.join(',')}  priority: ${endpoint.priority}${endpoint.enabled ? '' : '  (disabled)'}`,
    );
  }
  out('\nProvider presets (write `provider: NAME` in a models entry):');
  for (const preset of PROVIDER_PRESETS) {
    const key =
      preset.auth === 'copilot'
        ? ` — sign in: wren models login ${preset.name}`
        : preset.apiKeyEnv
          ? ` — key: ${preset.apiKeyEnv}`
          : ' — no key';
    out(`  ${preset.name.padEnd(14)} ${preset.label}${key}`);
  }
  return EXIT.ok;
}

/** `wren models test [name]`: one tiny request per endpoint; exit 1 when any fails. */
export async function runModelsTest(options: { home: string; name?: string }): Promise<number> {
  ensureHome(options.home);
  const all = resolveEndpoints(loadConfig(options.home));
  const endpoints = options.name ? all.filter((endpoint) => endpoint.name === options.name) : all;
  if (endpoints.length === 0) {
    process.stderr.write(
      options.name
        ? `wren: no model named "${options.name}" (configured: ${all.map((endpoint) => endpoint.name).join(', ') || 'none'})\n`
        : `wren: no models configured (run \`${wren()} onboard\`)\n`,
    );
    return EXIT.usage;
  }
  const results = await Promise.all(
    endpoints.map(async (endpoint) => ({ endpoint, result: await testEndpoint(endpoint) })),
  );
  let failed = 0;
  for (const { endpoint, result } of results) {
    if (result.ok) out(`✓ ${endpoint.name}  ${result.latencyMs} ms  (${endpoint.model})`);
    else {
      failed++;
      out(`✗ ${endpoint.name}  ${result.error ?? 'failed'}`);
    }
  }
  return failed > 0 ? EXIT.failed : EXIT.ok;
}
