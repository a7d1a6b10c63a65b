import type { EndpointConfig } from '../llm/endpoint.js';
import { type LocalModelServer, probeLocalModels } from '../llm/probe-local-models.js';
import { findProviderPreset } from '../llm/provider-presets.js';
import { wren } from './wren-command.js';

/** What to tell a user who has no model at all (`command`: how their shell runs this CLI). */
export function noModelHelp(home: string, command = wren()): string {
  return [
    'No model is configured, and no local model server answered on 127.0.0.1',
    '(Ollama :11434, LM Studio :1234, llama.cpp :8080, vLLM :8000).',
    'Add one:',
    `  • run \`${command} onboard\` (it asks a few questions and tests the model before saving), or`,
    `  • add to ${home}/config.yaml:`,
    '      models:',
    '        - name: main',
    '          provider: openai        # or anthropic, gemini, deepseek, openrouter, groq, mistral, ollama …',
    '          model: gpt-4o-mini',
    `    and put OPENAI_API_KEY=… in ${home}/.env`,
  ].join('\n');
}

/** An endpoint for a local server found by probing, as `provider: <preset>` would configure it. */
export function endpointForLocalServer(
  server: LocalModelServer,
  model = server.models[0] ?? 'default',
): EndpointConfig {
  const preset = findProviderPreset(server.preset);
  return {
    name: `local-${server.preset}`,
    protocol: preset?.protocol ?? 'openai',
    baseUrl: server.baseUrl,
    model,
    tags: ['default'],
    priority: 0,
    contextWindow: preset?.contextWindow ?? 8192,
    maxOutputTokens: 2048,
    enabled: true,
    timeoutMs: 300_000,
    vision: false,
  };
}

/** Probes for local model servers; the first that offers a model, as an endpoint, or undefined. */
export async function findLocalEndpoint(
  probe: typeof probeLocalModels = probeLocalModels,
): Promise<{ server: LocalModelServer; endpoint: EndpointConfig } | undefined> {
  const servers = await probe();
  const server = servers.find((candidate) => candidate.models.length > 0);
  return server ? { server, endpoint: endpointForLocalServer(server) } : undefined;
}
