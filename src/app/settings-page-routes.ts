import type { Hono } from 'hono';
import { backupRoutes } from '../gateway/backup-routes.js';
import { mcpRoutes } from '../gateway/mcp-routes.js';
import { modelRoutes } from '../gateway/model-routes.js';
import { onboardingRoutes } from '../gateway/onboarding-routes.js';
import { settingsRoutes } from '../gateway/settings-routes.js';
import type { WrenApp } from './wren-app.js';

/**
 * The route groups of the web app's Settings and Onboarding pages, built from the app:
 * `/api/settings` (config.yaml), `/api/models` (the endpoint pool), `/api/mcp` (mcp.json and the MCP
 * manager), `/api/onboarding` (config.yaml and .env) and `/api/backup` (a download of the home without
 * secrets, through the app's backup service, logged by name and size; mounted when the app has one). The
 * gateway mounts them (createGateway's `lazyRoutes`) behind its token check and host guard.
 */
export function settingsPageRoutes(app: WrenApp): Hono[] {
  const { home, env, backups } = app;
  const onDownload = (download: { file: string; bytes: number }) =>
    app.logger.info(download, 'backup downloaded over the API');
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
    backupRoutes({ backups, onDownload }),
  ];
}
