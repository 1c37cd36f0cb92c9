import { memoryStorage } from '@tidings/memory';
import { describe, expect, it } from 'vitest';
import { createTidings, isTidingsError } from '../src/index.js';
import { MAX_DEVICE_TOKENS_PER_PROVIDER } from '../src/schemas.js';
import { manualClock } from '../src/testing/index.js';

const tokens = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
const fcmTokens = async (tidings: ReturnType<typeof createTidings>, subscriberId = 'ada') =>
  (await tidings.subscribers.get(subscriberId))?.channels.filter((c) => c.providerId === 'fcm').flatMap((c) => c.credentials.deviceTokens ?? []);

/** What a refusal names: its code and the fields of its issues. */
const refusal = (error: unknown) => (isTidingsError(error, 'validation_failed') ? error.issues.map((i) => i.path) : error);

function engine() {
  const storage = memoryStorage();
  const clock = manualClock('2026-06-01T12:00:00.000Z');
  return { storage, clock, tidings: createTidings({ storage, clock }) };
}

describe('device tokens per subscriber and provider are capped (issue 40, item 7)', () => {
  it('appends past the cap are refused naming credentials.deviceTokens, and change nothing; the cap itself is reached', async () => {
    const { tidings, clock } = engine();
    await tidings.subscribers.upsert({ subscriberId: 'ada' });
    // 21 appends of 20 tokens gave one subscriber 420,000 tokens before the cap (20,000 each then).
    for (let n = 0; n < MAX_DEVICE_TOKENS_PER_PROVIDER / 20; n++) await tidings.subscribers.setCredentials('ada', { providerId: 'fcm', credentials: { deviceTokens: tokens(`p${n}`, 20) } }, 'append');
    const full = await tidings.subscribers.get('ada');
    expect(await fcmTokens(tidings)).toHaveLength(MAX_DEVICE_TOKENS_PER_PROVIDER);
    clock.advance(1_000);
    for (let n = 0; n < 16; n++) {
      const error = await tidings.subscribers.setCredentials('ada', { providerId: 'fcm', credentials: { deviceTokens: tokens(`more${n}`, 20) } }, 'append').catch((e: unknown) => e);
      expect(refusal(error)).toEqual(['credentials.deviceTokens']);
      expect((error as Error).message).toContain(`would give the subscriber 120 fcm device tokens; at most ${MAX_DEVICE_TOKENS_PER_PROVIDER} per subscriber and provider`);
    }
    expect(await tidings.subscribers.get('ada')).toEqual(full);
    // Tokens it holds already add nothing, so appending them again is not past the cap.
    await tidings.subscribers.setCredentials('ada', { providerId: 'fcm', credentials: { deviceTokens: tokens('p0', 20) } }, 'append');
    expect(await fcmTokens(tidings)).toHaveLength(MAX_DEVICE_TOKENS_PER_PROVIDER);
  });

  it('a replacement holds at most the cap; over all of a provider’s integrations, the subscriber holds at most the cap', async () => {
    const { tidings } = engine();
    await tidings.subscribers.upsert({ subscriberId: 'ada' });
    const tooMany = await tidings.subscribers.setCredentials('ada', { providerId: 'fcm', credentials: { deviceTokens: tokens('t', 101) } }).catch((e: unknown) => e);
    expect(refusal(tooMany)).toEqual(['credentials.deviceTokens']);
    const tooLong = await tidings.subscribers.setCredentials('ada', { providerId: 'fcm', credentials: { deviceTokens: ['x'.repeat(4_097)] } }).catch((e: unknown) => e);
    expect(refusal(tooLong)).toEqual(['credentials.deviceTokens[0]']);
    await tidings.subscribers.setCredentials('ada', { providerId: 'fcm', integrationIdentifier: 'fcm-a', credentials: { deviceTokens: tokens('a', 60) } });
    const second = await tidings.subscribers.setCredentials('ada', { providerId: 'fcm', integrationIdentifier: 'fcm-b', credentials: { deviceTokens: tokens('b', 41) } }).catch((e: unknown) => e);
    expect(refusal(second)).toEqual(['credentials.deviceTokens']);
    expect(await fcmTokens(tidings)).toEqual(tokens('a', 60));
    // Another provider has a cap of its own.
    await tidings.subscribers.setCredentials('ada', { providerId: 'expo', credentials: { deviceTokens: tokens('e', 100) } });
    await tidings.subscribers.setCredentials('ada', { providerId: 'fcm', integrationIdentifier: 'fcm-b', credentials: { deviceTokens: tokens('b', 40) } });
    expect(await fcmTokens(tidings)).toHaveLength(100);
  });

  it('subscribers.upsert (POST and PUT /v1/subscribers) refuses channels past the cap, naming the setting; nothing is created', async () => {
    const { tidings } = engine();
    const one = await tidings.subscribers.upsert({ subscriberId: 'ada', channels: [{ providerId: 'fcm', credentials: { deviceTokens: tokens('t', 101) } }] }).catch((e: unknown) => e);
    expect(refusal(one)).toEqual(['channels[0].credentials.deviceTokens']);
    const split = await tidings.subscribers
      .upsert({ subscriberId: 'ada', channels: [{ providerId: 'slack', credentials: { webhookUrl: 'https://hooks.example/1' } }, { providerId: 'fcm', integrationIdentifier: 'a', credentials: { deviceTokens: tokens('a', 70) } }, { providerId: 'fcm', integrationIdentifier: 'b', credentials: { deviceTokens: tokens('b', 70) } }] })
      .catch((e: unknown) => e);
    expect(refusal(split)).toEqual(['channels[1].credentials.deviceTokens']);
    expect(await tidings.subscribers.get('ada')).toBeNull();
  });

  it('a trigger’s subscriber object: past the cap in one setting refuses that event only; past it over two integrations keeps the stored tokens', async () => {
    const { tidings } = engine();
    await tidings.workflows.upsert({ name: 'n', triggers: [{ identifier: 'n' }], steps: [{ template: { type: 'in_app', content: 'x' } }] });
    const [over, fine] = await tidings.triggerBulk([
      { name: 'n', to: { subscriberId: 'ada', channels: [{ providerId: 'fcm', credentials: { deviceTokens: tokens('t', 101) } }] } },
      { name: 'n', to: { subscriberId: 'bob', channels: [{ providerId: 'fcm', integrationIdentifier: 'a', credentials: { deviceTokens: tokens('a', 60) } }] } },
    ]);
    expect(over!.status).toBe('error');
    expect(over!.error).toEqual([expect.stringContaining('to.channels[0].credentials.deviceTokens: must hold at most 100 device tokens')]);
    expect(fine!.status).toBe('processed');
    expect(await tidings.subscribers.get('ada')).toBeNull();
    // 60 stored under one integration and 60 more under another would be 120: that provider's settings stay as stored.
    const again = await tidings.trigger({ name: 'n', to: { subscriberId: 'bob', firstName: 'Bob', channels: [{ providerId: 'fcm', integrationIdentifier: 'b', credentials: { deviceTokens: tokens('b', 60) } }] } });
    expect(again.status).toBe('processed');
    expect(await tidings.subscribers.get('bob')).toMatchObject({ firstName: 'Bob' });
    expect(await fcmTokens(tidings, 'bob')).toEqual(tokens('a', 60));
  });

  it('a subscriber stored past the cap before it existed may still shrink, and may not grow', async () => {
    const { tidings, storage } = engine();
    const ada = await tidings.subscribers.upsert({ subscriberId: 'ada' });
    await storage.subscribers.putMany(tidings.environmentId, [{ ...ada, channels: [{ providerId: 'fcm', credentials: { deviceTokens: tokens('old', 500) }, _integrationId: '' }] }]);
    expect(refusal(await tidings.subscribers.setCredentials('ada', { providerId: 'fcm', credentials: { deviceTokens: ['new'] } }, 'append').catch((e: unknown) => e))).toEqual(['credentials.deviceTokens']);
    expect(await fcmTokens(tidings)).toHaveLength(500);
    await tidings.subscribers.setCredentials('ada', { providerId: 'fcm', credentials: { deviceTokens: ['new'] } });
    expect(await fcmTokens(tidings)).toEqual(['new']);
  });
});
