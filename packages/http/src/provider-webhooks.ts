import type { Tidings } from '@tidings/core';
import type { Hono } from 'hono';
import { readBody } from './body.js';
import type { AppEnv } from './context.js';
import { HttpError } from './errors.js';
import { checkedParams } from './params.js';

/**
 * The URL the provider called, as it signed it (Twilio signs it): the request's own, or, behind a
 * proxy the app was told to trust, the scheme and host it forwarded (the first of
 * `x-forwarded-proto`, `x-forwarded-host`). Without that trust any client could choose the URL a
 * signature is checked against, and so replay a signature made for another host.
 */
function calledUrl(request: Request, trustProxy: boolean): string {
  const url = new URL(request.url);
  if (!trustProxy) return url.toString();
  const proto = request.headers.get('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
  const host = request.headers.get('x-forwarded-host')?.split(',')[0]?.trim();
  if (proto === 'http' || proto === 'https') url.protocol = `${proto}:`;
  if (host) url.host = host;
  return url.toString();
}

/**
 * `POST` (or `GET`) `/v1/webhooks/:environmentId/:integrationId`: providers' status callbacks (delivered, bounced,
 * opened, …). No API key: the provider's own signature is the check (`tidings.providerWebhook`); an
 * unsigned or wrongly signed callback is a 401 and changes nothing.
 */
export function providerWebhookRoutes(app: Hono<AppEnv>, environments: readonly Tidings[], limit: number, trustProxy = false): void {
  const byEnvironment = new Map(environments.map((t) => [t.environmentId, t]));
  // Vonage can send its delivery receipts as GET with the fields in the query.
  app.on(['POST', 'GET'], '/v1/webhooks/:environmentId/:integrationId', async (c) => {
    const params = checkedParams(c.req.param() as Record<string, string>);
    const tidings = byEnvironment.get(params['environmentId']!);
    if (!tidings) throw new HttpError(404, `Environment ${params['environmentId']} not found`);
    const declared = Number(c.req.header('content-length') ?? 0);
    if (declared > limit) throw new HttpError(413, `The request body is larger than ${limit} bytes`, {}, { connection: 'close' });
    const body = c.req.method === 'GET' ? '' : await readBody(c.req.raw, limit);
    const headers: Record<string, string> = {};
    c.req.raw.headers.forEach((value, name) => (headers[name.toLowerCase()] = value));
    const result = await tidings.providerWebhook(params['integrationId']!, { method: c.req.method, url: calledUrl(c.req.raw, trustProxy), headers, body });
    return c.json({ data: result }, 200);
  });
}
