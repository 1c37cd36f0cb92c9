/**
 * Novu's `skip` (JSON Logic, "skip the step when true") and Tidings' step filters ("run the step when
 * they pass"): the translation both ways, checked against a small JSON Logic evaluator written from
 * json-logic-js' rules (loose `==`, `in` on arrays, truthiness), so a negation gone wrong shows.
 */
import { evaluateFilters, type Filter } from '@tidings/core';
import { type FilterPart } from '@tidings/core/schemas';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { filterListItems } from '@tidings/core/internal';
import { filtersFromSkip, listValue, SkipNotMappable, skipFromFilters, type JsonLogic } from '../src/novu-v2/skip-logic.js';
import { mappableFilters } from './novu-v2-arbitraries.js';

/** json-logic-js' truthiness: an empty array is false. */
const truthy = (value: unknown) => (Array.isArray(value) ? value.length > 0 : Boolean(value));

/** The JSON Logic operations the mapping reads, as json-logic-js evaluates them. */
function apply(logic: unknown, data: Record<string, unknown>): unknown {
  if (typeof logic !== 'object' || logic === null) return logic;
  if (Array.isArray(logic)) return logic.map((item) => apply(item, data));
  const [op] = Object.keys(logic);
  const raw = (logic as Record<string, unknown>)[op!];
  const args = Array.isArray(raw) ? raw : [raw];
  if (op === 'var') return String(args[0]).split('.').reduce<unknown>((v, key) => (v !== null && typeof v === 'object' && key in v ? (v as Record<string, unknown>)[key] : null), data);
  if (op === 'and') {
    let last: unknown;
    for (const arg of args) if (!truthy((last = apply(arg, data)))) return last;
    return last;
  }
  if (op === 'or') {
    let last: unknown;
    for (const arg of args) if (truthy((last = apply(arg, data)))) return last;
    return last;
  }
  const [a, b, c] = args.map((arg) => apply(arg, data)) as [any, any, any];
  switch (op) {
    case '==':
      return a == b; // eslint-disable-line eqeqeq
    case '!=':
      return a != b; // eslint-disable-line eqeqeq
    case '<':
      return a < b;
    case '>':
      return a > b;
    case '>=':
      return a >= b;
    case '<=':
      return c === undefined ? a <= b : a <= b && b <= c;
    case 'in':
      return Array.isArray(b) || typeof b === 'string' ? b.indexOf(a) !== -1 : false;
    case '!':
      return !truthy(a);
    default:
      throw new Error(`no such operation ${op}`);
  }
}

const notMappable = (skip: JsonLogic) => {
  try {
    filtersFromSkip(skip);
  } catch (error) {
    if (error instanceof SkipNotMappable) return error.message;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(skip)} not to map`);
};

describe('skip → filters: the forms that map', () => {
  const payload = (field: string) => ({ var: `payload.${field}` });

  it('one condition is one negated AND group (skip when it holds = run unless it holds)', () => {
    expect(filtersFromSkip({ '==': [payload('muted'), true] })).toEqual([
      { isNegated: true, type: 'GROUP', value: 'AND', children: [{ on: 'payload', field: 'muted', operator: 'EQUAL', value: 'true' }] },
    ]);
    expect(filtersFromSkip({})).toEqual([]);
  });

  it('and / or of conditions, "!" around them, and an AND of groups', () => {
    const a = { '>': [payload('n'), 5] };
    const b = { '!=': [{ var: 'subscriber.data.plan' }, 'pro'] };
    const partA: FilterPart = { on: 'payload', field: 'n', operator: 'LARGER', value: '5' };
    const partB: FilterPart = { on: 'subscriber', field: 'data.plan', operator: 'NOT_EQUAL', value: 'pro' };
    expect(filtersFromSkip({ and: [a, b] })).toEqual([{ isNegated: true, type: 'GROUP', value: 'AND', children: [partA, partB] }]);
    expect(filtersFromSkip({ or: [a, b] })).toEqual([{ isNegated: true, type: 'GROUP', value: 'OR', children: [partA, partB] }]);
    expect(filtersFromSkip({ '!': { and: [a, b] } })).toEqual([{ isNegated: false, type: 'GROUP', value: 'AND', children: [partA, partB] }]);
    expect(filtersFromSkip({ and: [a, { or: [b] }] })).toEqual([
      { isNegated: true, type: 'GROUP', value: 'AND', children: [partA] },
      { isNegated: true, type: 'GROUP', value: 'OR', children: [partB] },
    ]);
  });

  it('operators: swapped sides, between, in, and "!" around in / between / == / !=', () => {
    const part = (skip: JsonLogic) => filtersFromSkip(skip)[0]!.children[0]!;
    expect(part({ '<': [3, payload('n')] })).toMatchObject({ operator: 'LARGER', value: '3' });
    expect(part({ '>=': [3, payload('n')] })).toMatchObject({ operator: 'SMALLER_EQUAL', value: '3' });
    expect(part({ '<=': [1, payload('n'), 9] })).toMatchObject({ operator: 'BETWEEN', value: '1,9' });
    expect(part({ in: [payload('plan'), ['a', 'b', 3]] })).toMatchObject({ operator: 'IN', value: 'a,b,3' });
    expect(part({ in: [payload('plan'), ['a, b', 'c']] })).toMatchObject({ operator: 'IN', value: '["a, b","c"]' });
    expect(part({ '!': { in: [payload('plan'), ['a']] } })).toMatchObject({ operator: 'NOT_IN', value: 'a' });
    expect(part({ '!': [{ '<=': [1, payload('n'), 9] }] })).toMatchObject({ operator: 'NOT_BETWEEN' });
    expect(part({ '!': { '==': [payload('x'), 'y'] } })).toMatchObject({ operator: 'NOT_EQUAL' });
    expect(part({ '==': [{ var: ['tenant.data.region'] }, 'eu'] })).toMatchObject({ on: 'tenant', field: 'data.region', operator: 'EQUAL' });
  });
});

describe('skip → filters: what does not map says where and why', () => {
  it.each([
    [{ '===': [{ var: 'payload.a' }, 1] }, '===: "===" does not map'],
    [{ in: ['spam', { var: 'payload.title' }] }, 'in: "in" on a text (substring, "contains") does not map'],
    [{ '==': [{ var: 'payload.a' }, null] }, '==[1]: comparing with null does not map'],
    [{ '==': [{ var: ['payload.a', 'x'] }, 1] }, '"var" with a default value does not map'],
    [{ '==': [{ var: 'steps.digest.eventCount' }, 1] }, 'the variable "steps.digest.eventCount" does not map'],
    [{ '==': [{ var: 'payload' }, 1] }, 'must name a field inside payload'],
    [{ or: [{ and: [{ '==': [{ var: 'payload.a' }, 1] }] }] }, 'or[0].and: "and" nested this deep does not map'],
    [{ and: [] }, 'and: needs at least one condition'],
    [{ '<': [1, { var: 'payload.a' }, 5] }, 'a three-argument "<" excludes its bounds'],
    [{ '!': { '>': [{ var: 'payload.a' }, 1] } }, '"!" around ">" does not map'],
    [{ some: [{ var: 'payload.items' }, { '==': [{ var: '' }, 1] }] }, 'the operator "some" has no Tidings filter equivalent'],
    [{ '==': [{ var: 'payload.a' }, 1], '!=': [{ var: 'payload.b' }, 2] }, 'must hold exactly one operator'],
    [{ '==': [{ var: 'payload.a' }, { var: 'payload.b' }] }, 'must compare one variable with one literal'],
  ] as [JsonLogic, string][])('%j', (skip, reason) => {
    expect(notMappable(skip)).toContain(reason);
  });
});

describe('filters → skip', () => {
  it('no filters is no skip; filters JSON Logic cannot write are null (the response leaves skip out)', () => {
    expect(skipFromFilters([])).toBeUndefined();
    const like: Filter = { isNegated: false, type: 'GROUP', value: 'AND', children: [{ on: 'payload', field: 'title', operator: 'LIKE', value: '%a%' }] };
    expect(skipFromFilters([like])).toBeNull();
    expect(skipFromFilters([{ ...like, children: [] }])).toBeNull();
    expect(skipFromFilters([{ ...like, type: 'NUMBER', children: [{ on: 'payload', field: 'n', operator: 'EQUAL', value: '1' }] }])).toBeNull();
  });

  it('a filter that runs the step when the plan is pro skips it when the plan is not', () => {
    const filters: Filter[] = [{ isNegated: false, type: 'GROUP', value: 'AND', children: [{ on: 'subscriber', field: 'data.plan', operator: 'EQUAL', value: 'pro' }] }];
    const skip = skipFromFilters(filters)!;
    expect(skip).toEqual({ '!': { and: [{ '==': [{ var: 'subscriber.data.plan' }, 'pro'] }] } });
    expect(apply(skip, { subscriber: { data: { plan: 'pro' } } })).toBe(false);
    expect(apply(skip, { subscriber: { data: { plan: 'free' } } })).toBe(true);
  });

  it('list values read back as the evaluator reads them', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: fc.constantFrom('a', 'b', ',', ' ', '[', '"', '1'), minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 4 }), (items) => {
        expect(filterListItems(listValue(items))).toEqual(items);
      }),
    );
  });
});

// ------------------------------------------------------------------------------------------------
// Properties

describe('properties', () => {
  it('filters → skip → filters is the identity on the mappable subset', () => {
    fc.assert(
      fc.property(mappableFilters, (filters) => {
        const skip = skipFromFilters(filters);
        expect(skip === undefined ? [] : filtersFromSkip(skip!)).toEqual(filters);
      }),
      { numRuns: 500 },
    );
  });

  /** Payload fields with a fixed type each; conditions compare a field with literals of its type. */
  const FIELDS = { n: 'number', m: 'number', s: 'string', t: 'string', b: 'boolean' } as const;
  const num = fc.integer({ min: -4, max: 4 });
  const str = fc.string({ unit: fc.constantFrom('a', 'b', ',', ' ', '[', '"'), maxLength: 3 });
  const literalOf = (field: keyof typeof FIELDS) => (FIELDS[field] === 'number' ? num : FIELDS[field] === 'string' ? str : fc.boolean()) as fc.Arbitrary<string | number | boolean>;
  const v = (field: string) => ({ var: `payload.${field}` });
  const condition: fc.Arbitrary<JsonLogic> = fc.constantFrom(...(Object.keys(FIELDS) as (keyof typeof FIELDS)[])).chain((field) => {
    const lit = literalOf(field);
    const equality = fc.tuple(fc.constantFrom('==', '!='), lit, fc.boolean()).map(([op, l, swap]) => ({ [op]: swap ? [l, v(field)] : [v(field), l] }));
    const list = fc.array(lit, { minLength: 1, maxLength: 3 }).map((items) => ({ in: [v(field), items] }));
    const negated = fc.oneof(equality, list).map((c) => ({ '!': c }));
    if (FIELDS[field] !== 'number') return fc.oneof(equality, list, negated);
    const order = fc.tuple(fc.constantFrom('<', '>', '<=', '>='), num, fc.boolean()).map(([op, l, swap]) => ({ [op]: swap ? [l, v(field)] : [v(field), l] }));
    const between = fc.tuple(num, num).map(([a, b]) => ({ '<=': [Math.min(a, b), v(field), Math.max(a, b)] }));
    return fc.oneof(equality, list, negated, order, between, between.map((c) => ({ '!': c })));
  });
  const conditions = fc.array(condition, { minLength: 1, maxLength: 3 });
  const group = fc.oneof(
    conditions.map((cs) => ({ and: cs })),
    conditions.map((cs) => ({ or: cs })),
    conditions.map((cs) => ({ '!': { and: cs } })),
    conditions.map((cs) => ({ '!': { or: cs } })),
  );
  const skip: fc.Arbitrary<JsonLogic> = fc.oneof(condition, group, fc.array(fc.oneof(condition, group), { minLength: 1, maxLength: 3 }).map((items) => ({ and: items })));
  const payload = fc.record({ n: num, m: num, s: str, t: str, b: fc.boolean() });

  it('a step runs under the mapped filters exactly when its skip is false (JSON Logic)', () => {
    fc.assert(
      fc.property(skip, fc.array(payload, { minLength: 1, maxLength: 5 }), (logic, payloads) => {
        const filters = filtersFromSkip(logic);
        for (const p of payloads) expect(evaluateFilters(filters, { payload: p }), JSON.stringify({ logic, p, filters })).toBe(!truthy(apply(logic, { payload: p })));
      }),
      { numRuns: 1000 },
    );
  });

  it('filters → skip keeps their meaning: the skip is true exactly when the filters fail', () => {
    fc.assert(
      fc.property(skip, fc.array(payload, { minLength: 1, maxLength: 5 }), (logic, payloads) => {
        const filters = filtersFromSkip(logic);
        const back = skipFromFilters(filters)!;
        for (const p of payloads) expect(truthy(apply(back, { payload: p }))).toBe(!evaluateFilters(filters, { payload: p }));
      }),
      { numRuns: 500 },
    );
  });
});
