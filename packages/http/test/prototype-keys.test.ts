import { createTidings } from '@tidings/core';
import { memoryStorage } from '@tidings/memory';
import { describe, expect, it } from 'vitest';
import { createHttpApp } from '../src/index.js';
import { ROUTES } from './routes-list.js';

/** Members named like Object.prototype's own: a body may carry them, and they must be plain names to every route. */
const BODY = '{"__proto__":[],"constructor":{"prototype":{"polluted":true}},"toString":1,"hasOwnProperty":null}';

describe('prototype member names in a body', () => {
  it('every route with a body answers them with a 4xx (or takes them as data), never a 500, and pollutes nothing', async () => {
    const tidings = createTidings({ storage: memoryStorage() });
    await tidings.subscribers.upsert({ subscriberId: 'ada' });
    const app = createHttpApp({ environments: [{ tidings, apiKeys: ['k'] }] });
    for (const [method, template] of ROUTES.filter(([m]) => m !== 'GET' && m !== 'DELETE')) {
      const path = template.replace(/\{[abc]\}/g, 'ada');
      const response = await app.request(path, { method, headers: { 'content-type': 'application/json', authorization: 'ApiKey k' }, body: BODY });
      expect(response.status, `${method} ${path}`).toBeLessThan(500);
      if (response.status === 422) expect(JSON.stringify(await response.json()), `${method} ${path}`).not.toContain('[object Object]');
    }
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});
