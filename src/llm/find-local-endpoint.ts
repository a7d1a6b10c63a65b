import type { EndpointConfig } from './endpoint.js';
import { type LocalModelServer, probeLocalModels } from './probe-local-models.js';
import { findProviderPreset } from './provider-presets.js';

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
