import type { Hono } from 'hono';
import type { WrenApp } from './app.js';
import { registerMcpRoutes } from './gateway/mcp-routes.js';
import { registerModelRoutes } from './gateway/model-routes.js';
import { registerOnboardingRoutes } from './gateway/onboarding-routes.js';
import { registerSettingsRoutes as registerSettingsApi } from './gateway/settings-routes.js';

/**
 * Registers the routes of the web app's Settings and Onboarding pages on the gateway, built from the app:
 * `/api/settings` (config.yaml), `/api/models` (the endpoint pool), `/api/mcp` (mcp.json and the MCP
 * manager) and `/api/onboarding` (config.yaml and .env). Call it after `createGateway`, so the token check
 * and the host guard registered there cover these routes too.
 */
export function registerSettingsRoutes(gateway: Hono, app: WrenApp): void {
  const { home, env } = app;
  registerSettingsApi(gateway, { home, env, config: () => app.config() });
  registerModelRoutes(gateway, {
    endpoints: () => app.endpoints(),
    pool: app.pool,
    providerOf: (name) => app.config().models.find((model) => model.name === name)?.provider,
    // The note about a local server found at start-up holds only while config.yaml still names no model.
    note: () => (app.config().models.length === 0 ? app.modelNote : undefined),
  });
  registerMcpRoutes(gateway, { home, env, manager: app.mcp, settings: () => app.config().mcp });
  registerOnboardingRoutes(gateway, { home, env, logger: app.logger });
}
