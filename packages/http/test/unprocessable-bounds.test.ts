import { createTidings } from '@tidings/core';
import { MAX_ISSUE_TEXT, MAX_LISTED_ISSUES } from '@tidings/core/internal';
import { memoryStorage } from '@tidings/memory';
import { workflow } from '@tidings/framework';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createHttpApp } from '../src/index.js';

const headers = { authorization: 'ApiKey k', 'content-type': 'application/json' };

/** A 422's `errors`, flattened to one line per listed issue. */
const listed = (body: { errors: Record<string, { messages: string[] }> }) => Object.entries(body.errors).flatMap(([path, { messages }]) => messages.map((message) => ({ path, message })));

describe('a 422 lists a bounded number of issues, however many the input has', () => {
  it('a 600 KB payload failing its workflow schema once per element: at most 100 issues listed, the rest counted, the answer under 100 KB', async () => {
    const items = workflow('items', async ({ step, payload }) => {
      await step.inApp('notice', () => ({ body: `${payload.items.length} items` }));
    }, { payloadSchema: z.object({ items: z.array(z.number()) }) });
    const tidings = createTidings({ storage: memoryStorage(), workflows: [items] });
    const app = createHttpApp({ environments: [{ tidings, apiKeys: ['k'] }] });
    const body = JSON.stringify({ name: 'items', to: 'ada', payload: { items: Array.from({ length: 120_000 }, () => 'ab') } });
    expect(body.length).toBeGreaterThan(580_000);

    const single = await app.request('/v1/events/trigger', { method: 'POST', headers, body });
    expect(single.status).toBe(422);
    const text = await single.text();
    expect(text.length).toBeLessThan(100_000);
    const answer = JSON.parse(text) as { message: string; errors: Record<string, { messages: string[] }> };
    const lines = listed(answer);
    expect(lines.length).toBeLessThanOrEqual(MAX_LISTED_ISSUES);
    expect(lines[0]).toEqual({ path: 'payload.items.0', message: expect.stringContaining('expected number') });
    // The last line counts the issues not listed: 120,000 in all.
    expect(lines.at(-1)!.message).toBe(`and ${120_000 - (MAX_LISTED_ISSUES - 1)} more issues not listed`);
    expect(answer.message.length).toBeLessThanOrEqual(4 * MAX_ISSUE_TEXT);

    // In a bulk call each event's `error` is bounded the same way (a 201 with one result per event).
    const bulk = await app.request('/v1/events/trigger/bulk', { method: 'POST', headers, body: JSON.stringify({ events: [JSON.parse(body), JSON.parse(body)].map((e) => ({ ...e, payload: { items: e.payload.items.slice(0, 60_000) } })) }) });
    const bulkText = await bulk.text();
    expect(bulkText.length).toBeLessThan(100_000);
    const results = (JSON.parse(bulkText) as { data: { status: string; error: string[] }[] }).data;
    expect(results.map((r) => [r.status, r.error.length])).toEqual([['error', MAX_LISTED_ISSUES], ['error', MAX_LISTED_ISSUES]]);
  });

  it('a body with 20,000 unknown members: 100 listed, `unlistedErrors` counts the rest, long keys cut', async () => {
    const tidings = createTidings({ storage: memoryStorage() });
    const app = createHttpApp({ environments: [{ tidings, apiKeys: ['k'] }] });
    const subscriber: Record<string, unknown> = { subscriberId: 'ada', [`long${'k'.repeat(5_000)}`]: 1 };
    for (let i = 0; i < 20_000; i++) subscriber[`unknownMember${String(i).padStart(6, '0')}`] = 1;
    const response = await app.request('/v1/subscribers', { method: 'POST', headers, body: JSON.stringify(subscriber) });
    expect(response.status).toBe(422);
    const text = await response.text();
    expect(text.length).toBeLessThan(100_000);
    const answer = JSON.parse(text) as { message: string; errors: Record<string, { messages: string[] }>; unlistedErrors: number };
    const lines = listed(answer);
    expect(lines).toHaveLength(MAX_LISTED_ISSUES);
    expect(answer.unlistedErrors).toBe(20_001 - MAX_LISTED_ISSUES);
    expect(lines.every((line) => line.path.length <= MAX_ISSUE_TEXT && line.message === 'is not a known member')).toBe(true);
    expect(answer.message).toMatch(/^Invalid /);
    expect(answer.message.length).toBeLessThanOrEqual(4 * MAX_ISSUE_TEXT);
    expect(await tidings.subscribers.get('ada')).toBeNull();
  });
});
