import { createHmac } from 'node:crypto';
import { Hono } from 'hono';
import type { GatewayOptions } from './gateway-options.js';

/**
 * `GET /api/health`, before the token check: version and uptime, plus `proof = HMAC-SHA256(secret, X)` for
 * `?challenge=X` (at most 128 characters) once the gateway has its instance secret. `options` is read at each
 * request, so a secret set after start-up (a getter) counts.
 */
export function healthRoutes(
  options: Pick<GatewayOptions, 'version' | 'startedAt' | 'instanceSecret'>,
): Hono {
  const app = new Hono();
  app.get('/api/health', (c) => {
    const challenge = c.req.query('challenge');
    const proof =
      challenge && options.instanceSecret && challenge.length <= 128
        ? createHmac('sha256', options.instanceSecret).update(challenge).digest('hex')
        : undefined;
    return c.json({
      ok: true,
      version: options.version,
      uptimeSeconds: Math.round((Date.now() - options.startedAt) / 1000),
      ...(proof ? { proof } : {}),
    });
  });
  return app;
}
