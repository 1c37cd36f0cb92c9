import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluateFilters, explainFilters, type Filter } from '../src/index.js';
import { FILTER_OPERATORS, FILTER_TYPES, type FilterOperator, type FilterPart } from '../src/schemas.js';

// A reference model written apart from the evaluator: tiny, obviously right, for the cases it covers.
const ref = {
  between: (x: number, a: number, b: number) => a <= x && x <= b,
  likeContains: (text: string, s: string) => text.toLowerCase().includes(s.toLowerCase()),
  anyIn: (have: string[], want: string[]) => want.some((w) => have.includes(w)),
  allIn: (have: string[], want: string[]) => want.length > 0 && want.every((w) => have.includes(w)),
};

const group = (children: FilterPart[], value: 'AND' | 'OR' = 'AND', isNegated = false, type: Filter['type'] = 'GROUP'): Filter => ({ isNegated, type, value, children });
const part = (field: string, operator: FilterOperator, value: string, on: FilterPart['on'] = 'payload'): FilterPart => ({ field, operator, value, on });

const word = fc.stringMatching(/^[a-z]{1,6}$/);
const json = fc.jsonValue({ maxDepth: 3 });
const anyPart = fc.record({ field: fc.oneof(word, fc.constantFrom('a.b', 'list[0]', 'x[1].y', '')), operator: fc.constantFrom(...FILTER_OPERATORS), value: fc.oneof(fc.string(), fc.constantFrom('1,5', '{{ payload.a }}', '[1,2]', '2026-01-01,2027-01-01', '%a_')), on: fc.constantFrom('subscriber' as const, 'payload' as const, 'tenant' as const, 'actor' as const) });
const anyGroup = fc.record({ isNegated: fc.boolean(), type: fc.constantFrom(...FILTER_TYPES), value: fc.constantFrom('AND' as const, 'OR' as const), children: fc.array(anyPart, { maxLength: 4 }) });

const NEGATIONS: [FilterOperator, FilterOperator][] = [
  ['EQUAL', 'NOT_EQUAL'],
  ['BETWEEN', 'NOT_BETWEEN'],
  ['LIKE', 'NOT_LIKE'],
  ['IN', 'NOT_IN'],
];

describe('filters — properties', () => {
  it('never throws, for arbitrary JSON contexts and arbitrary filter parts of every type', () => {
    fc.assert(
      fc.property(fc.array(anyGroup, { maxLength: 3 }), json, json, json, json, (filters, payload, subscriber, tenant, actor) => {
        const result = evaluateFilters(filters, { payload, subscriber, tenant, actor });
        expect(typeof result).toBe('boolean');
      }),
      { numRuns: 500 },
    );
  });

  it('NOT_X is the negation of X for present fields', () => {
    fc.assert(
      fc.property(json.filter((v) => v !== null), fc.string(), fc.constantFrom(...NEGATIONS), fc.constantFrom(...FILTER_TYPES), (actual, value, [op, notOp], type) => {
        const ctx = { payload: { f: actual } };
        expect(evaluateFilters([group([part('f', notOp, value)], 'AND', false, type)], ctx)).toBe(!evaluateFilters([group([part('f', op, value)], 'AND', false, type)], ctx));
      }),
      { numRuns: 500 },
    );
  });

  it('a missing or null field fails every operator except the NOT_ ones', () => {
    fc.assert(
      fc.property(fc.constantFrom(...FILTER_OPERATORS), fc.string(), fc.constantFrom(undefined, null), (op, value, missing) => {
        const ctx = { payload: missing === undefined ? {} : { f: null } };
        expect(evaluateFilters([group([part('f', op, value)])], ctx)).toBe(op.startsWith('NOT_'));
      }),
    );
  });

  it('isNegated flips a group; AND passes iff all parts pass, OR iff some part passes; a list passes iff some group passes', () => {
    const partArb = fc.record({ field: fc.constantFrom('a', 'b', 'c'), operator: fc.constantFrom('EQUAL' as const, 'LARGER' as const, 'IN' as const), value: fc.constantFrom('1', '2', '1,3'), on: fc.constant('payload' as const) });
    const ctxArb = fc.record({ a: fc.integer({ min: 0, max: 3 }), b: fc.integer({ min: 0, max: 3 }), c: fc.integer({ min: 0, max: 3 }) });
    fc.assert(
      fc.property(fc.array(fc.array(partArb, { maxLength: 4 }), { maxLength: 4 }), fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }), fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }), ctxArb, (groups, ors, negs, payload) => {
        const ctx = { payload };
        const single = (p: FilterPart) => evaluateFilters([group([p])], ctx);
        const filters = groups.map((children, i) => group(children, ors[i] ? 'OR' : 'AND', negs[i]!));
        const expected = filters.map((g) => {
          const results = g.children.map(single);
          const combined = results.length === 0 || (g.value === 'OR' ? results.some(Boolean) : results.every(Boolean));
          return g.isNegated ? !combined : combined;
        });
        filters.forEach((g, i) => expect(evaluateFilters([g], ctx)).toBe(expected[i]));
        expect(evaluateFilters(filters, ctx)).toBe(filters.length === 0 || expected.some(Boolean));
      }),
    );
  });

  it('BETWEEN "a,b" equals a ≤ x ≤ b for numbers, as numbers or numeric strings', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1000, max: 1000 }), fc.integer({ min: -1000, max: 1000 }), fc.integer({ min: -1000, max: 1000 }), fc.boolean(), (x, a, b, asString) => {
        const ctx = { payload: { x: asString ? String(x) : x } };
        expect(evaluateFilters([group([part('x', 'BETWEEN', `${a},${b}`)])], ctx)).toBe(ref.between(x, a, b));
        expect(evaluateFilters([group([part('x', 'BETWEEN', `${a}, ${b}`)], 'AND', false, 'NUMBER')], ctx)).toBe(ref.between(x, a, b));
      }),
    );
  });

  it('LIKE "%s%" equals a case-insensitive substring test', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'B', 'c', ' ', 'é', '.', '*', '(') , maxLength: 12 });
    fc.assert(
      fc.property(text, text, (haystack, needle) => {
        expect(evaluateFilters([group([part('t', 'LIKE', `%${needle}%`)])], { payload: { t: haystack } })).toBe(ref.likeContains(haystack, needle));
      }),
    );
  });

  it('ANY_IN is a non-empty intersection and ALL_IN a subset', () => {
    const items = fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd', 'e'), { maxLength: 5 });
    fc.assert(
      fc.property(items, items.filter((l) => l.length > 0), (have, want) => {
        const ctx = { payload: { tags: have } };
        expect(evaluateFilters([group([part('tags', 'ANY_IN', want.join(','))])], ctx)).toBe(ref.anyIn(have, want));
        expect(evaluateFilters([group([part('tags', 'ALL_IN', JSON.stringify(want))], 'AND', false, 'MULTI_LIST')], ctx)).toBe(ref.allIn(have, want));
      }),
    );
  });

  it('explainFilters agrees with evaluateFilters and traces every part', () => {
    fc.assert(
      fc.property(fc.array(anyGroup, { maxLength: 3 }), json, (filters, payload) => {
        const trace = explainFilters(filters, { payload });
        expect(trace.passed).toBe(evaluateFilters(filters, { payload }));
        expect(trace.groups.map((g) => g.parts.length)).toEqual(filters.map((f) => f.children.length));
      }),
    );
  });
});
