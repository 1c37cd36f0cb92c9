/**
 * The activity page's server side: its files (public, under a strict content security policy), the
 * committed bundle being the one its sources build, and the retry route it calls.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTidings, ProviderError, type Provider } from '@tidings/core';
import { manualClock } from '@tidings/core/testing';
import { memoryStorage } from '@tidings/memory';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { ACTIVITY_OUT, bundleActivity } from '../scripts/build-activity.mjs';
import { activityApp } from '../src/activity/activity-app.js';
import { serve } from '../../cli/src/serve.js';
import { createHttpApp } from '../src/index.js';

describe('activityApp', () => {
  const root = new Hono();
  root.route('/ops/activity', activityApp({ api: '/api' }));

  it('serves the page at its mount path (redirecting to the trailing slash), its script and style, public but locked down', async () => {
    const bare = await root.request('/ops/activity');
    expect(bare.status).toBe(308);
    expect(bare.headers.get('location')).toBe('activity/');

    const page = await root.request('/ops/activity/');
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<meta name="tidings-api" content="/api">');
    expect(html).toContain('<script type="module" src="activity.js"></script>');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");

    const script = await root.request('/ops/activity/activity.js');
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await script.text()).toBe(readFileSync(`${ACTIVITY_OUT}activity.js`, 'utf8'));
    expect((await root.request('/ops/activity/activity.css')).headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect((await root.request('/ops/activity/secrets.json')).status).toBe(404);
  });

  it('the committed bundle is what the page’s sources build (else: pnpm --filter @tidings/http build:activity)', async () => {
    const built = await bundleActivity();
    for (const name of ['activity.js', 'activity.css']) expect(readFileSync(`${ACTIVITY_OUT}${name}`, 'utf8'), name).toBe(built[name]);
  });
});

describe('tidings serve', () => {
  it('serves the page at /activity, unless activity: false (--no-activity)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tidings-activity-serve-'));
    try {
      for (const [activity, status] of [[true, 200], [false, 404]] as const) {
        const server = await serve({ port: 0, db: join(dir, `${activity}.db`), apiKey: 'k', activity });
        try {
          expect((await fetch(`${server.url}/activity/`)).status).toBe(status);
        } finally {
          await server.close();
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('POST /v1/notifications/:transactionId/retry', () => {
  it('sends a failed step again (201 naming the steps); 404 for an unknown transaction or subscriber, 409 when nothing failed, 422 naming subscriberId', async () => {
    let calls = 0;
    const mail: Provider = {
      id: 'mailer',
      channel: 'email',
      async send() {
        calls += 1;
        if (calls === 1) throw new ProviderError('the mail service is down', { retryable: false, status: 503 });
        return { id: `pm-${calls}` };
      },
    };
    const tidings = createTidings({ storage: memoryStorage(), clock: manualClock('2026-06-01T12:00:00.000Z'), providers: [mail] });
    const app = createHttpApp({ environments: [{ tidings, apiKeys: ['k'] }] });
    await tidings.integrations.upsert({ name: 'Mailer', providerId: 'mailer', channel: 'email', active: true, primary: true });
    await tidings.workflows.upsert({ name: 'Mail', triggers: [{ identifier: 'mail' }], steps: [{ template: { type: 'email', subject: 'Hi', content: 'Hello' } }] });
    const { transactionId } = await tidings.trigger({ name: 'mail', to: { subscriberId: 'ada', email: 'ada@example.com' } });
    await tidings.runDue();
    const retry = async (body: unknown, tx = transactionId!) => {
      const response = await app.request(`/v1/notifications/${tx}/retry`, { method: 'POST', headers: { authorization: 'ApiKey k', 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: response.status, body: (await response.json()) as any };
    };

    expect(await retry({ subscriberId: 'ada', extra: 1 })).toMatchObject({ status: 422, body: { errors: { extra: expect.anything() } } });
    expect(await retry({})).toMatchObject({ status: 422, body: { errors: { subscriberId: expect.anything() } } });
    expect((await retry({ subscriberId: 'ada' }, 'nope')).status).toBe(404);
    expect((await retry({ subscriberId: 'nobody' })).status).toBe(404);
    const [failed] = await tidings.messages.byTransaction(transactionId!);
    expect(await retry({ subscriberId: 'ada' })).toEqual({ status: 201, body: { data: { retried: [{ stepIndex: 0, messageIds: [failed!._id] }] } } });
    await tidings.runDue();
    expect(await tidings.messages.byTransaction(transactionId!)).toMatchObject([{ _id: failed!._id, status: 'sent', providerMessageId: 'pm-2' }]);
    expect(await retry({ subscriberId: 'ada' })).toMatchObject({ status: 409, body: { message: expect.stringContaining('Nothing to retry') } });
    expect((await app.request(`/v1/notifications/${transactionId}/retry`, { method: 'POST', body: '{}' })).status).toBe(401);
  });
});
