import { describe, expect, it } from 'vitest';
import { testEngine } from './helpers.js';

const vipOnly = { isNegated: false, type: 'TEXT' as const, value: 'AND' as const, children: [{ field: 'data.tier', operator: 'EQUAL' as const, value: 'vip', on: 'subscriber' as const }] };

describe('filters in the engine', () => {
  it('a step filter delivers to the subscriber it passes for, and the trace names the failing part for the other', async () => {
    const { tidings } = testEngine();
    await tidings.workflows.upsert({ name: 'f', triggers: [{ identifier: 'f' }], steps: [{ template: { type: 'in_app', content: 'VIP news' }, filters: [vipOnly] }] });
    const result = await tidings.trigger({ name: 'f', to: [{ subscriberId: 'vip', data: { tier: 'vip' } }, { subscriberId: 'basic', data: { tier: 'basic' } }] });
    await tidings.runDue();
    expect((await tidings.messages.byTransaction(result.transactionId!)).map((m) => m.subscriberId)).toEqual(['vip']);
    const [why] = await tidings.explain(result.transactionId!, 'basic');
    expect(why!.entries).toEqual([
      expect.objectContaining({ decision: 'skipped', reason: 'a step filter did not pass', failedFilter: { on: 'subscriber', field: 'data.tier', operator: 'EQUAL', expected: 'vip', actual: 'basic', passed: false } }),
    ]);
    expect((await tidings.explain(result.transactionId!, 'vip'))[0]!.entries[0]).toMatchObject({ decision: 'delivered' });
  });

  it('the first variant whose filters pass replaces the step; else the step itself runs', async () => {
    const { tidings } = testEngine();
    await tidings.workflows.upsert({
      name: 'v',
      triggers: [{ identifier: 'v' }],
      steps: [
        {
          template: { type: 'in_app', content: 'Hello' },
          variants: [
            { template: { type: 'in_app', content: 'Bonjour' }, filters: [{ isNegated: false, type: 'TEXT', value: 'AND', children: [{ field: 'locale', operator: 'LIKE', value: 'fr%', on: 'subscriber' }] }] },
            { active: false, template: { type: 'in_app', content: 'Inactive variant' } },
            { template: { type: 'in_app', content: 'Hi VIP' }, filters: [vipOnly] },
          ],
        },
      ],
    });
    const result = await tidings.trigger({
      name: 'v',
      to: [{ subscriberId: 'fr', locale: 'fr-FR', data: { tier: 'vip' } }, { subscriberId: 'vip', data: { tier: 'vip' } }, { subscriberId: 'en', locale: 'en' }],
    });
    await tidings.runDue();
    const byWho = Object.fromEntries((await tidings.messages.byTransaction(result.transactionId!)).map((m) => [m.subscriberId, m.content]));
    expect(byWho).toEqual({ fr: 'Bonjour', vip: 'Hi VIP', en: 'Hello' });
    expect((await tidings.explain(result.transactionId!, 'vip'))[0]!.entries[0]).toMatchObject({ variantIndex: 2 });
  });

  it('payload filters with {{ }} values, and a tenant filter', async () => {
    const { tidings } = testEngine();
    await tidings.tenants.upsert({ identifier: 'acme', data: { plan: 'enterprise' } });
    await tidings.workflows.upsert({
      name: 'p',
      triggers: [{ identifier: 'p' }],
      steps: [
        { template: { type: 'in_app', content: 'over budget' }, filters: [{ isNegated: false, type: 'NUMBER', value: 'AND', children: [{ field: 'spent', operator: 'LARGER', value: '{{ payload.budget }}', on: 'payload' }] }] },
        { template: { type: 'in_app', content: 'enterprise' }, filters: [{ isNegated: false, type: 'TEXT', value: 'AND', children: [{ field: 'data.plan', operator: 'EQUAL', value: 'enterprise', on: 'tenant' }] }] },
      ],
    });
    const a = await tidings.trigger({ name: 'p', to: 'ada', payload: { spent: 120, budget: 100 }, tenant: 'acme' });
    const b = await tidings.trigger({ name: 'p', to: 'ada', payload: { spent: 80, budget: 100 } });
    await tidings.runDue();
    expect((await tidings.messages.byTransaction(a.transactionId!)).map((m) => m.content)).toEqual(['over budget', 'enterprise']);
    expect((await tidings.messages.byTransaction(b.transactionId!)).map((m) => m.content)).toEqual([]);
  });

  it('integration conditions are checked against the tenant; the trace names the integration picked', async () => {
    const { tidings } = testEngine();
    await tidings.tenants.upsert({ identifier: 'eu-co', data: { region: 'eu' } });
    await tidings.integrations.upsert({ name: 'Default', identifier: 'mail-default', providerId: 'smtp', channel: 'email', primary: true });
    await tidings.integrations.upsert({
      name: 'EU',
      identifier: 'mail-eu',
      providerId: 'smtp-eu',
      channel: 'email',
      conditions: [{ isNegated: false, type: 'TEXT', value: 'AND', children: [{ field: 'data.region', operator: 'EQUAL', value: 'eu', on: 'tenant' }] }],
    });
    await tidings.workflows.upsert({ name: 'm', triggers: [{ identifier: 'm' }], steps: [{ template: { type: 'email', subject: 's', content: 'c' } }] });
    const eu = await tidings.trigger({ name: 'm', to: { subscriberId: 'a', email: 'a@x.io' }, tenant: 'eu-co' });
    const other = await tidings.trigger({ name: 'm', to: { subscriberId: 'a', email: 'a@x.io' } });
    await tidings.runDue();
    expect((await tidings.messages.byTransaction(eu.transactionId!))[0]!.providerId).toBe('smtp-eu');
    expect((await tidings.messages.byTransaction(other.transactionId!))[0]!.providerId).toBe('smtp');
    expect((await tidings.explain(eu.transactionId!))[0]!.entries[0]).toMatchObject({ integration: 'mail-eu' });
  });

  it('overrides.<channel>.integrationIdentifier picks the integration (trigger-event.e2e “override integration identifier”); one that is not active fails the step with the reason', async () => {
    const { tidings } = testEngine();
    await tidings.integrations.upsert({ name: 'Default', identifier: 'mail-default', providerId: 'smtp', channel: 'email', primary: true });
    await tidings.integrations.upsert({ name: 'Other', identifier: 'mail-other', providerId: 'smtp-other', channel: 'email' });
    await tidings.workflows.upsert({ name: 'm', triggers: [{ identifier: 'm' }], steps: [{ template: { type: 'email', subject: 's', content: 'c' } }] });
    const to = { subscriberId: 'a', email: 'a@x.io' };
    const named = await tidings.trigger({ name: 'm', to, overrides: { email: { integrationIdentifier: 'mail-other' } } });
    const missing = await tidings.trigger({ name: 'm', to, overrides: { email: { integrationIdentifier: 'mail-gone' } } });
    await tidings.runDue();
    expect((await tidings.messages.byTransaction(named.transactionId!))[0]!.providerId).toBe('smtp-other');
    expect((await tidings.messages.byTransaction(missing.transactionId!))[0]).toMatchObject({ status: 'warning', errorText: `the trigger's overrides name "mail-gone", which is not an active email integration` });
  });
});
