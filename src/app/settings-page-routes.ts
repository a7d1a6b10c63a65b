import type { Hono } from 'hono';
import { mcpRoutes } from '../gateway/mcp-routes.js';
import { modelRoutes } from '../gateway/model-routes.js';
import { onboardingRoutes } from '../gateway/onboarding-routes.js';
import { settingsRoutes } from '../gateway/settings-routes.js';
import type { WrenApp } from './wren-app.js';

/**
 * The route groups of the web app's Settings and Onboarding pages, built from the app:
 * `/api/settings` (config.yaml), `/api/models` (the endpoint pool), `/api/mcp` (mcp.json and the MCP
 * manager) and `/api/onboarding` (config.yaml and .env). The gateway mounts them (createGateway's
 * `lazyRoutes`) behind its token check and host guard.
 */
export function settingsPageRoutes(app: WrenApp): Hono[] {
  const { home, env } = app;
  return [
    settingsRoutes({ home, env, config: () => app.config() }),
    modelRoutes({
      endpoints: () => app.endpoints(),
      pool: app.pool,
      providerOf: (name) => app.config().models.find((model) => model.name === name)?.provider,
      // The note about a local server found at start-up holds only while config.yaml still names no model.
      note: () => (app.config().models.length === 0 ? app.modelNote : undefined),
    }),
    mcpRoutes({ home, env, manager: app.mcp, settings: () => app.config().mcp }),
    onboardingRoutes({ home, env, logger: app.logger }),
  ];
}
