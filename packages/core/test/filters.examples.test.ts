import { describe, expect, it } from 'vitest';
import { evaluateFilters, explainFilters, type Filter } from '../src/index.js';
import { type FilterOperator, type FilterType } from '../src/schemas.js';

const ctx = {
  payload: {
    count: 5,
    countText: '5',
    price: 19.99,
    flag: true,
    flagText: 'TRUE',
    name: 'Ada Lovelace',
    when: '2026-03-01T10:00:00Z',
    tags: ['vip', 'beta', 7],
    nested: { items: [{ sku: 'A1' }, { sku: 'B2' }] },
    empty: '',
    nothing: null,
    obj: { a: 1 },
  },
  subscriber: { subscriberId: 'ada', data: { plan: 'pro', seats: 3 }, locale: 'en-GB' },
  tenant: { identifier: 'acme', data: { region: 'eu' } },
  actor: { subscriberId: 'grace', firstName: 'Grace' },
};

function check(field: string, operator: FilterOperator, value: string, type: FilterType = 'GROUP', on: 'payload' | 'subscriber' | 'tenant' | 'actor' = 'payload') {
  const filter: Filter = { isNegated: false, type, value: 'AND', children: [{ field, operator, value, on }] };
  return evaluateFilters([filter], ctx);
}

describe('filters — each operator', () => {
  it.each([
    ['count', 'EQUAL', '5', 'GROUP', true],
    ['count', 'EQUAL', '5.0', 'NUMBER', true],
    ['countText', 'EQUAL', '5', 'NUMBER', true],
    ['countText', 'EQUAL', '5.0', 'TEXT', false],
    ['flag', 'EQUAL', 'true', 'GROUP', true],
    ['flagText', 'EQUAL', 'true', 'BOOLEAN', true],
    ['flag', 'EQUAL', 'yes', 'BOOLEAN', false],
    ['when', 'EQUAL', '2026-03-01T11:00:00+01:00', 'DATE', true],
    ['when', 'EQUAL', 'not a date', 'DATE', false],
    ['name', 'EQUAL', 'Ada Lovelace', 'TEXT', true],
    ['name', 'EQUAL', 'ada lovelace', 'TEXT', false],
    ['name', 'NOT_EQUAL', 'Grace', 'STATEMENT', true],
    ['tags', 'EQUAL', 'vip,beta,7', 'LIST', true],
    ['obj', 'EQUAL', '{"a":1}', 'GROUP', true],
    ['count', 'LARGER', '4', 'GROUP', true],
    ['count', 'LARGER', '5', 'GROUP', false],
    ['countText', 'LARGER_EQUAL', '5', 'TEXT', true],
    ['price', 'SMALLER', '20', 'NUMBER', true],
    ['price', 'SMALLER_EQUAL', '19.99', 'NUMBER', true],
    ['name', 'LARGER', 'A', 'TEXT', false],
    ['when', 'LARGER', '2026-01-01', 'DATE', true],
    ['when', 'SMALLER', 'garbage', 'DATE', false],
    ['count', 'BETWEEN', '1,5', 'NUMBER', true],
    ['count', 'BETWEEN', '6,9', 'NUMBER', false],
    ['count', 'BETWEEN', '5', 'NUMBER', false],
    ['count', 'BETWEEN', 'a,b', 'NUMBER', false],
    ['when', 'BETWEEN', '2026-01-01,2026-12-31', 'DATE', true],
    ['count', 'NOT_BETWEEN', '6,9', 'NUMBER', true],
    ['name', 'LIKE', 'ada%', 'TEXT', true],
    ['name', 'LIKE', '%LOVE%', 'TEXT', true],
    ['name', 'LIKE', 'Ad_ Lovelace', 'TEXT', true],
    ['name', 'LIKE', 'Ad_', 'TEXT', false],
    ['name', 'NOT_LIKE', 'grace%', 'TEXT', true],
    ['obj', 'LIKE', '%', 'TEXT', false],
    ['name', 'IN', 'Grace,Ada Lovelace', 'GROUP', true],
    ['count', 'IN', '[1, 5, 9]', 'NUMBER', true],
    ['tags', 'IN', 'beta,gamma', 'LIST', true],
    ['tags', 'NOT_IN', 'gamma,delta', 'LIST', true],
    ['tags', 'ANY_IN', 'x,7', 'MULTI_LIST', true],
    ['tags', 'ALL_IN', 'vip,beta', 'MULTI_LIST', true],
    ['tags', 'ALL_IN', 'vip,gamma', 'MULTI_LIST', false],
    ['tags', 'ALL_IN', '', 'MULTI_LIST', false],
    ['nested.items[1].sku', 'EQUAL', 'B2', 'TEXT', true],
    ['nested.items[5].sku', 'EQUAL', 'B2', 'TEXT', false],
    ['nested.items[5].sku', 'NOT_EQUAL', 'B2', 'TEXT', true],
    ['nothing', 'EQUAL', 'null', 'TEXT', false],
    ['nothing', 'NOT_IN', 'a', 'TEXT', true],
    ['empty', 'EQUAL', '', 'TEXT', true],
  ] as const)('%s %s %s (%s) → %s', (field, operator, value, type, expected) => {
    expect(check(field, operator, value, type)).toBe(expected);
  });

  it('reads subscriber, tenant and actor as well as payload', () => {
    expect(check('data.plan', 'EQUAL', 'pro', 'TEXT', 'subscriber')).toBe(true);
    expect(check('data.seats', 'LARGER_EQUAL', '3', 'NUMBER', 'subscriber')).toBe(true);
    expect(check('data.region', 'IN', 'eu,us', 'LIST', 'tenant')).toBe(true);
    expect(check('firstName', 'EQUAL', 'Grace', 'TEXT', 'actor')).toBe(true);
  });

  it('renders {{ }} in values against the same context', () => {
    expect(check('seats', 'EQUAL', '{{ subscriber.data.seats }}', 'NUMBER', 'subscriber')).toBe(false);
    expect(check('count', 'LARGER', '{{ subscriber.data.seats }}', 'NUMBER')).toBe(true);
    expect(check('name', 'LIKE', '{{ subscriber.subscriberId }}%', 'TEXT')).toBe(true);
    expect(check('name', 'EQUAL', '{{ unclosed', 'TEXT')).toBe(false);
  });

  it('groups: empty list passes, empty group passes, isNegated flips, OR and AND combine', () => {
    const yes = { field: 'count', operator: 'EQUAL' as const, value: '5', on: 'payload' as const };
    const no = { ...yes, value: '6' };
    const g = (children: (typeof yes)[], value: 'AND' | 'OR', isNegated = false): Filter => ({ isNegated, type: 'GROUP', value, children });
    expect(evaluateFilters([], ctx)).toBe(true);
    expect(evaluateFilters([g([], 'AND')], ctx)).toBe(true);
    expect(evaluateFilters([g([yes, no], 'AND')], ctx)).toBe(false);
    expect(evaluateFilters([g([yes, no], 'OR')], ctx)).toBe(true);
    expect(evaluateFilters([g([yes], 'AND', true)], ctx)).toBe(false);
    expect(evaluateFilters([g([no], 'AND'), g([yes], 'AND')], ctx)).toBe(true);
  });

  it('explainFilters names field, operator, expected, actual and the result of each part', () => {
    const trace = explainFilters(
      [{ isNegated: false, type: 'NUMBER', value: 'AND', children: [{ field: 'count', operator: 'LARGER', value: '{{ subscriber.data.seats }}', on: 'payload' }, { field: 'data.plan', operator: 'EQUAL', value: 'free', on: 'subscriber' }] }],
      ctx,
    );
    expect(trace).toEqual({
      passed: false,
      groups: [
        {
          value: 'AND',
          isNegated: false,
          passed: false,
          parts: [
            { on: 'payload', field: 'count', operator: 'LARGER', expected: '3', actual: 5, passed: true },
            { on: 'subscriber', field: 'data.plan', operator: 'EQUAL', expected: 'free', actual: 'pro', passed: false },
          ],
        },
      ],
    });
  });
});
