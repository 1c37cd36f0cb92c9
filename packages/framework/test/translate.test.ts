/** A code workflow translates in its own resolvers with the engine's catalogs: `t` and `locale` beside `step`. */
import { createTidings, manualClock } from '@tidings/core';
import { memoryStorage } from '@tidings/memory';
import { describe, expect, it } from 'vitest';
import { workflow } from '../src/index.js';

describe('t() in code workflows', () => {
  it("translates in the run's locale (the trigger's, else the subscriber's), falls back to the default, and a missing key fails the run by name", async () => {
    const notice = workflow('notice', async ({ step, payload, t, locale }) => {
      await step.inApp('hello', () => ({ subject: locale, body: t('notice.body', { count: payload.count as number }) }));
    }, { payloadSchema: { type: 'object', properties: { count: { type: 'number' } }, additionalProperties: false } });
    const broken = workflow('broken', async ({ step, t }) => {
      await step.inApp('hello', () => ({ body: t('nowhere') }));
    });
    const tidings = createTidings({
      storage: memoryStorage(),
      clock: manualClock('2026-06-01T12:00:00.000Z'),
      workflows: [notice, broken],
      translations: { en: { notice: { body: '{count, plural, one {# new reply} other {# new replies}}' } }, 'pt-BR': { notice: { body: '{count, plural, one {# resposta nova} other {# respostas novas}}' } } },
    });
    await tidings.trigger({ name: 'notice', to: { subscriberId: 'ana', locale: 'pt-BR' }, payload: { count: 3 } });
    await tidings.trigger({ name: 'notice', to: { subscriberId: 'bo', locale: 'de' }, payload: { count: 1 } });
    await tidings.trigger({ name: 'notice', to: 'ana', payload: { count: 1 }, locale: 'en' });
    const failed = await tidings.trigger({ name: 'broken', to: 'ana' });
    await tidings.runDue();
    expect((await tidings.messages.feed('ana')).items.map((m) => [m.subject, m.content])).toEqual([
      ['en', '1 new reply'],
      ['pt-BR', '3 respostas novas'],
    ]);
    expect((await tidings.messages.feed('bo')).items.map((m) => [m.subject, m.content])).toEqual([['de', '1 new reply']]);
    expect(JSON.stringify(await tidings.explain(failed.transactionId!))).toContain('the translation \\"nowhere\\" is missing');
  });
});
