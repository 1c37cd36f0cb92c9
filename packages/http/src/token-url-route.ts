import type { Tidings } from '@tidings/core';
import { isTidingsError } from '@tidings/core';
import type { Hono } from 'hono';
import { readBody } from './body.js';
import type { AppEnv } from './context.js';
import { HttpError } from './errors.js';
import { checkedParams } from './params.js';

/**
 * `POST /v1/tokens/:id/complete?sig=…`: a token's signed URL, with no API key: the signature is the
 * check (401 when it does not verify), and it works once (409 after). The body, JSON, is the output
 * (none: `{}`). Without `sig` the request goes on to the API-keyed route of the same path.
 */
export function tokenUrlRoute(app: Hono<AppEnv>, environments: readonly Tidings[], limit: number): void {
  app.post('/v1/tokens/:id/complete', async (c, next) => {
    const sig = c.req.query('sig');
    if (sig === undefined) return next();
    const id = checkedParams(c.req.param() as Record<string, string>)['id']!;
    const text = await readBody(c.req.raw, limit);
    let output: unknown = {};
    try {
      output = text.trim() === '' ? {} : JSON.parse(text);
    } catch {
      throw new HttpError(400, 'The body must be JSON: the token’s output');
    }
    for (const tidings of environments) {
      try {
        await tidings.tokens.get(id);
      } catch (error) {
        if (isTidingsError(error, 'not_found')) continue;
        throw error;
      }
      return c.json({ data: await tidings.tokens.completeSigned(id, sig, output as Record<string, unknown>) }, 200);
    }
    throw new HttpError(404, `Token "${id}" was not found`);
  });
}
