import { describe, expect, it } from 'vitest';
import { selectIntegration } from '../src/internal.js';
import { fixtures } from '../src/testing/index.js';

const tenant = { _id: 't', identifier: 'acme', name: 'Acme', data: { region: 'us' }, _environmentId: 'e', createdAt: fixtures.T0, updatedAt: fixtures.T0 };
const cond = (region: string) => [{ isNegated: false, type: 'TEXT' as const, value: 'AND' as const, children: [{ field: 'data.region', operator: 'EQUAL' as const, value: region, on: 'tenant' as const }] }];

describe('selectIntegration', () => {
  it('conditions that pass win, then the primary, then the oldest active; failing conditions are never used', () => {
    const plain = fixtures.integrationRecord('e', { identifier: 'plain' });
    const primary = fixtures.integrationRecord('e', { identifier: 'primary', primary: true });
    const us = fixtures.integrationRecord('e', { identifier: 'us', conditions: cond('us') });
    const eu = fixtures.integrationRecord('e', { identifier: 'eu', conditions: cond('eu'), primary: true });
    expect(selectIntegration([plain, primary, eu, us], 'email', tenant).integration?.identifier).toBe('us');
    expect(selectIntegration([plain, primary, eu], 'email', tenant).integration?.identifier).toBe('primary');
    expect(selectIntegration([plain, eu], 'email', tenant).integration?.identifier).toBe('plain');
    const none = selectIntegration([eu], 'email', tenant);
    expect(none.integration).toBeNull();
    expect(none.rejected).toEqual([{ identifier: 'eu', failed: expect.objectContaining({ field: 'data.region', actual: 'us' }) }]);
    expect(selectIntegration([plain], 'sms', tenant).reason).toBe('no active sms integration');
    expect(selectIntegration([{ ...plain, active: false }], 'email', null).integration).toBeNull();
  });

  it('an integration the trigger names (trigger-event.e2e: override integration identifier) wins over every rule, if it is an active one of the channel', () => {
    const primary = fixtures.integrationRecord('e', { identifier: 'primary', primary: true });
    const other = fixtures.integrationRecord('e', { identifier: 'other' });
    const us = fixtures.integrationRecord('e', { identifier: 'us', conditions: cond('us') });
    expect(selectIntegration([primary, other, us], 'email', tenant, 'other').integration?.identifier).toBe('other');
    for (const named of ['missing', 'primary']) {
      const refused = selectIntegration([{ ...primary, active: false }, other], 'email', tenant, named);
      expect(refused.integration).toBeNull();
      expect(refused.reason).toBe(`the trigger's overrides name "${named}", which is not an active email integration`);
    }
    expect(selectIntegration([primary], 'sms', null, 'primary').integration).toBeNull();
  });
});
