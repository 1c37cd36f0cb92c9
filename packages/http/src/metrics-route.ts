import { createHash, timingSafeEqual } from 'node:crypto';
import type { Hono } from 'hono';
import type { AppEnv, MetricsOptions } from './context.js';
import { HttpError } from './errors.js';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** Both sides are hashed first: `timingSafeEqual` then compares equal lengths, and its time says nothing of the token's length. */
const digest = (text: string) => createHash('sha256').update(text).digest();

const CHALLENGE = { 'www-authenticate': 'Bearer realm="metrics"' };

/**
 * `GET /metrics` answered from `options.prometheus`. With a token, a request without
 * `Authorization: Bearer <token>` is a 401 before anything is collected, so it counts nothing.
 */
export function metricsRoute(app: Hono<AppEnv>, options: MetricsOptions): void {
  const { token } = options;
  if (token !== undefined && !/^\S+$/.test(token)) throw new TypeError('metrics.token must be a non-empty string without spaces (scrapers send it as "Authorization: Bearer <token>")');
  const expected = token === undefined ? null : digest(token);
  app.get('/metrics', async (c) => {
    if (expected) {
      const header = c.req.header('authorization');
      if (!header) throw new HttpError(401, 'Missing the Authorization header (Authorization: Bearer <metrics token>)', {}, CHALLENGE);
      const given = BEARER.exec(header)?.[1];
      if (given === undefined) throw new HttpError(401, 'The Authorization header of /metrics must use the Bearer scheme', {}, CHALLENGE);
      if (!timingSafeEqual(digest(given), expected)) throw new HttpError(401, 'Wrong metrics token', {}, CHALLENGE);
    }
    return options.prometheus.respond();
  });
}
