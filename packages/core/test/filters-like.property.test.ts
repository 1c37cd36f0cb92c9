import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluateFilters, explainFilters, type FilterContext } from '../src/filters/evaluate.js';
import { applyOperator, escapeLike, likeMatch, likeMatchSteps, MAX_LIKE_PATTERN_LENGTH, MAX_LIKE_TEXT_LENGTH } from '../src/filters/operators.js';
import { filterPartSchema, type Filter, type FilterPart } from '../src/schemas/filter.js';

// A reference LIKE written apart from the matcher: tokens over code points, then a memoized recursion.
// Character equality asks the `iu` regex flags (what LIKE used before) about one literal character.
type RefToken = { kind: 'any' } | { kind: 'one' } | { kind: 'char'; ch: string };

const sameChar = (a: string, b: string) => new RegExp(`^${a.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`, 'iu').test(b);

function refTokens(pattern: string): RefToken[] {
  const chars = [...pattern];
  const tokens: RefToken[] = [];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    const next = chars[i + 1];
    if (ch === '\\' && (next === '%' || next === '_' || next === '\\')) {
      tokens.push({ kind: 'char', ch: next });
      i++;
    } else if (ch === '%') tokens.push({ kind: 'any' });
    else if (ch === '_') tokens.push({ kind: 'one' });
    else tokens.push({ kind: 'char', ch });
  }
  return tokens;
}

function refLike(text: string, pattern: string): boolean {
  const t = [...text];
  const p = refTokens(pattern);
  const memo = new Map<string, boolean>();
  const match = (i: number, j: number): boolean => {
    const key = `${i},${j}`;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let result: boolean;
    if (j === p.length) result = i === t.length;
    else {
      const token = p[j]!;
      if (token.kind === 'any') result = match(i, j + 1) || (i < t.length && match(i + 1, j));
      else result = i < t.length && (token.kind === 'one' || sameChar(token.ch, t[i]!)) && match(i + 1, j + 1);
    }
    memo.set(key, result);
    return result;
  };
  return match(0, 0);
}

// Mixed case, case-fold oddities (ſ/s, ß/ẞ, Kelvin sign/k, dotless ı), an astral letter, wildcards, escapes.
const ALPHABET = ['a', 'A', 'b', 'B', 's', 'S', 'ſ', 'ß', 'ẞ', 'k', '\u212a', 'i', 'I', 'ı', 'é', 'É', '𝒜', '%', '_', '\\'];
const texts = fc.string({ unit: fc.constantFrom(...ALPHABET), maxLength: 10 });
const patterns = fc.string({ unit: fc.constantFrom(...ALPHABET), maxLength: 8 });
const withinBound = (text: string, pattern: string) => likeMatchSteps(text, pattern).steps <= (text.length + 1) * (pattern.length + 1);

describe('LIKE matcher — against a reference model', () => {
  it('agrees with the reference for arbitrary small texts and patterns, and NOT_LIKE is its negation', () => {
    fc.assert(
      fc.property(texts, patterns, (text, pattern) => {
        const expected = refLike(text, pattern);
        expect(likeMatch(text, pattern)).toBe(expected);
        expect(applyOperator('LIKE', text, pattern, 'TEXT')).toBe(expected);
        expect(applyOperator('NOT_LIKE', text, pattern, 'TEXT')).toBe(!expected);
      }),
      { numRuns: 3000 },
    );
  });

  it('agrees with the reference over a tiny alphabet, where segments repeat and overlap', () => {
    const tinyText = fc.string({ unit: fc.constantFrom('a', 'A', 'b'), maxLength: 10 });
    const tinyPattern = fc.string({ unit: fc.constantFrom('a', 'A', 'b', '%', '_', '\\'), maxLength: 10 });
    fc.assert(
      fc.property(tinyText, tinyPattern, (text, pattern) => {
        expect(likeMatch(text, pattern)).toBe(refLike(text, pattern));
      }),
      { numRuns: 3000 },
    );
  });

  it('agrees with the reference on patterns built from pieces of the text', () => {
    const piece = fc.constantFrom('%', '_', '\\%', '\\_', '\\\\', '\\');
    fc.assert(
      fc.property(texts, fc.array(fc.tuple(fc.nat(12), piece), { maxLength: 4 }), (text, edits) => {
        const chars = [...text];
        for (const [at, insert] of edits) chars.splice(at % (chars.length + 1), 0, insert);
        const pattern = chars.join('');
        expect(likeMatch(text, pattern)).toBe(refLike(text, pattern));
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    ['50%', '50\\%', true],
    ['500', '50\\%', false],
    ['a_b', 'a\\_b', true],
    ['axb', 'a\\_b', false],
    ['a\\b', 'a\\\\b', true],
    ['a\\\\b', 'a\\\\b', false],
    ['a\\', 'a\\', true],
    ['C:\\Users\\ada', 'c:\\users\\a%', true],
    ['C:\\Users\\ada', 'c:\\users\\%', false],
    ['𝒜', '_', true],
    ['𝒜𝒜', '_', false],
    ['ſ', 'S', true],
    ['ı', 'I', false],
    ['STRASSE', 'straße', false],
    ['', '', true],
    ['', '%', true],
    ['', '_', false],
  ] as const)('%j LIKE %j → %s', (text, pattern, expected) => {
    expect(likeMatch(text, pattern)).toBe(expected);
    expect(refLike(text, pattern)).toBe(expected);
  });

  it('an escaped text, as a pattern, matches exactly that text in any case', () => {
    fc.assert(
      fc.property(texts, texts, (text, literal) => {
        expect(likeMatch(text, escapeLike(literal))).toBe(refLike(text, escapeLike(literal)));
        expect(likeMatch(literal, escapeLike(literal))).toBe(true);
        expect(likeMatch(literal.toUpperCase(), escapeLike(literal))).toBe(refLike(literal.toUpperCase(), escapeLike(literal)));
      }),
    );
  });
});

describe('LIKE matcher — bounded work', () => {
  it('makes at most (text.length + 1) × (pattern.length + 1) comparisons, for arbitrary inputs', () => {
    fc.assert(
      fc.property(texts, patterns, (text, pattern) => withinBound(text, pattern)),
      { numRuns: 2000 },
    );
  });

  it('stays within the bound on adversarial patterns: %a%a…%b against long runs of a', () => {
    for (const k of [1, 2, 5, 10, 20, 30]) {
      for (const n of [10, 100, 1_000, 10_000]) {
        const text = 'a'.repeat(n);
        for (const pattern of ['%a'.repeat(k) + '%b', '%a'.repeat(k) + '%b%', `%${'a'.repeat(k)}b%`, `${'_%'.repeat(k)}b`]) {
          const { matched, steps } = likeMatchSteps(text, pattern);
          expect(matched).toBe(false);
          expect(steps).toBeLessThanOrEqual((text.length + 1) * (pattern.length + 1));
        }
      }
    }
  });

  it('runs the pattern that froze the regex in linear steps', () => {
    const { matched, steps } = likeMatchSteps('a'.repeat(70), '%a%a%a%a%a%a%b');
    expect(matched).toBe(false);
    expect(steps).toBeLessThanOrEqual(2 * (70 + 14));
  });

  it('stays within the bound on random adversarial combinations', () => {
    const adversarialPattern = fc.string({ unit: fc.constantFrom('%', '%', 'a', 'a', '_', 'b', 'A'), maxLength: 40 });
    const adversarialText = fc.tuple(fc.integer({ min: 0, max: 3_000 }), fc.constantFrom('', 'b', 'ab', '_')).map(([n, tail]) => 'a'.repeat(n) + tail);
    fc.assert(
      fc.property(adversarialText, adversarialPattern, (text, pattern) => withinBound(text, pattern)),
      { numRuns: 300 },
    );
  });

  it(`reads at most ${MAX_LIKE_TEXT_LENGTH} characters of text and ${MAX_LIKE_PATTERN_LENGTH} of pattern: longer never match`, () => {
    const longest = 'x'.repeat(MAX_LIKE_TEXT_LENGTH);
    expect(likeMatch(longest, '%')).toBe(true);
    expect(likeMatch(`${longest}x`, '%')).toBe(false);
    expect(applyOperator('LIKE', `${longest}x`, '%', 'TEXT')).toBe(false);
    expect(applyOperator('NOT_LIKE', `${longest}x`, '%', 'TEXT')).toBe(true);
    expect(likeMatch('x', '%'.repeat(MAX_LIKE_PATTERN_LENGTH))).toBe(true);
    expect(likeMatch('x', '%'.repeat(MAX_LIKE_PATTERN_LENGTH + 1))).toBe(false);
    expect(likeMatchSteps(`${longest}x`, '%').steps).toBe(0);
  });
});

describe('LIKE filters — data rendered into the pattern', () => {
  const filter = (part: Partial<FilterPart> & Pick<FilterPart, 'value'>): Filter[] => [
    { isNegated: false, type: 'TEXT', value: 'AND', children: [{ on: 'payload', field: 'name', operator: 'LIKE', ...part }] },
  ];
  const payload = (name: string, p: string): FilterContext => ({ payload: { name, p } });

  it('a payload value rendered into the pattern is literal: `%` does not match everything', () => {
    expect(evaluateFilters(filter({ value: '{{ payload.p }}' }), payload('a_b', '%'))).toBe(false);
    expect(evaluateFilters(filter({ value: '{{ payload.p }}' }), payload('%', '%'))).toBe(true);
    expect(evaluateFilters(filter({ value: '{{ payload.p }}', operator: 'NOT_LIKE' }), payload('a_b', '%'))).toBe(true);
    expect(explainFilters(filter({ value: '{{ payload.p }}' }), payload('a_b', '%')).groups[0]!.parts[0]!.expected).toBe('\\%');
  });

  it('rawPattern: true lets rendered data carry wildcards', () => {
    expect(evaluateFilters(filter({ value: '{{ payload.p }}', rawPattern: true }), payload('a_b', '%'))).toBe(true);
    expect(evaluateFilters(filter({ value: '%{{ payload.p }}%', rawPattern: true }), payload('abc', '_'))).toBe(true);
  });

  it("the workflow's own wildcards around {{ }} stay wildcards: %{{ p }}% with p = _ needs a literal _", () => {
    expect(evaluateFilters(filter({ value: '%{{ payload.p }}%' }), payload('a_b', '_'))).toBe(true);
    expect(evaluateFilters(filter({ value: '%{{ payload.p }}%' }), payload('abc', '_'))).toBe(false);
    expect(evaluateFilters(filter({ value: '%{{ payload.p }}%' }), payload('x\\y', '\\'))).toBe(true);
    expect(evaluateFilters(filter({ value: '%{{ payload.p }}%' }), payload('xy', '\\'))).toBe(false);
  });

  it('escapes every root the value renders from, nested and in arrays', () => {
    const context: FilterContext = { payload: { name: 'ada_x' }, subscriber: { data: { prefixes: ['ad_'] } } };
    expect(evaluateFilters(filter({ value: '{{ subscriber.data.prefixes[0] }}%' }), context)).toBe(false);
    expect(evaluateFilters(filter({ value: '{{ subscriber.data.prefixes[0] }}%', rawPattern: true }), context)).toBe(true);
    expect(evaluateFilters(filter({ value: '{{ subscriber.data.prefixes[0] }}%' }), { ...context, payload: { name: 'AD_x' } })).toBe(true);
  });

  it('matches a payload-chosen value only literally, for arbitrary strings', () => {
    fc.assert(
      fc.property(texts, texts, (name, p) => {
        expect(evaluateFilters(filter({ value: '{{ payload.p }}' }), payload(name, p))).toBe(refLike(name, escapeLike(p)));
      }),
    );
  });

  it('leaves rendered values of other operators as they are', () => {
    const equal = filter({ value: '{{ payload.p }}', operator: 'EQUAL' });
    expect(evaluateFilters(equal, payload('a_b%', 'a_b%'))).toBe(true);
    expect(explainFilters(equal, payload('a_b%', 'a_b%')).groups[0]!.parts[0]!.expected).toBe('a_b%');
  });

  it('rawPattern is optional and boolean, and absent from parsed parts that do not set it', () => {
    const base = { on: 'payload', field: 'name', operator: 'LIKE', value: '%a%' };
    expect(filterPartSchema.parse(base)).toEqual(base);
    expect('rawPattern' in filterPartSchema.parse(base)).toBe(false);
    expect(filterPartSchema.parse({ ...base, rawPattern: true })).toEqual({ ...base, rawPattern: true });
    expect(filterPartSchema.safeParse({ ...base, rawPattern: 'yes' }).success).toBe(false);
  });
});
