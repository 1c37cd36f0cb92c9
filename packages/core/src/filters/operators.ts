import type { FilterOperator, FilterType } from '../schemas/index.js';
import { asBoolean, asInstant, asList, asNumber, asText, elementsAsText, sameItem } from './values.js';

/** How a value is compared: the group's type where it names one, else the actual value's type. */
export type Comparison = 'NUMBER' | 'DATE' | 'BOOLEAN' | 'TEXT' | 'LIST';

export function comparisonFor(type: FilterType, actual: unknown): Comparison {
  switch (type) {
    case 'NUMBER':
    case 'DATE':
    case 'BOOLEAN':
    case 'TEXT':
      return type;
    case 'LIST':
    case 'MULTI_LIST':
      return 'LIST';
    default:
      if (typeof actual === 'number') return 'NUMBER';
      if (typeof actual === 'boolean') return 'BOOLEAN';
      if (Array.isArray(actual)) return 'LIST';
      return 'TEXT';
  }
}

function equal(actual: unknown, expected: string, as: Comparison): boolean {
  switch (as) {
    case 'NUMBER': {
      const a = asNumber(actual);
      const b = asNumber(expected);
      return a !== null && b !== null && a === b;
    }
    case 'BOOLEAN': {
      const a = asBoolean(actual);
      const b = asBoolean(expected);
      return a !== null && b !== null && a === b;
    }
    case 'DATE': {
      const a = asInstant(actual);
      const b = asInstant(expected);
      return a !== null && b !== null && a === b;
    }
    case 'LIST': {
      if (!Array.isArray(actual)) return asText(actual) === expected;
      const items = asList(expected);
      const elements = elementsAsText(actual);
      return items.length === elements.length && items.every((item, i) => sameItem(item, elements[i]!));
    }
    case 'TEXT': {
      const text = asText(actual);
      if (text !== null) return text === expected;
      return JSON.stringify(actual) === expected;
    }
  }
}

/** -1, 0 or 1 when both sides are numbers (or instants for DATE); null when they cannot be ordered. */
function order(actual: unknown, expected: unknown, as: Comparison): number | null {
  const read = as === 'DATE' ? asInstant : asNumber;
  const a = read(actual);
  const b = read(expected);
  if (a === null || b === null) return null;
  return Math.sign(a - b);
}

function between(actual: unknown, expected: string, as: Comparison): boolean {
  const bounds = expected.split(',');
  if (bounds.length !== 2) return false;
  const low = order(actual, bounds[0]!.trim(), as === 'DATE' ? 'DATE' : 'NUMBER');
  const high = order(actual, bounds[1]!.trim(), as === 'DATE' ? 'DATE' : 'NUMBER');
  return low !== null && high !== null && low >= 0 && high <= 0;
}

/**
 * LIKE reads at most this many characters (UTF-16 units) of a field: a longer text never matches, so
 * LIKE fails and NOT_LIKE passes.
 */
export const MAX_LIKE_TEXT_LENGTH = 10_000;

/**
 * A LIKE pattern longer than this (UTF-16 units, after rendering and escaping) never matches. With the
 * text bound it caps one evaluation at about 10^7 character comparisons.
 */
export const MAX_LIKE_PATTERN_LENGTH = 1_000;

/** `_` in a pattern: any one character (code point). */
const ONE: unique symbol = Symbol('LIKE _');
type Token = string | typeof ONE;
/** The tokens between two `%`s (or a pattern's ends); literal characters are case folded. */
type Segment = readonly Token[];

const ESCAPABLE = new Set(['%', '_', '\\']);

const isSingleCodePoint = (text: string) => text.length === 1 || (text.length === 2 && text.codePointAt(0)! > 0xffff);

/**
 * One character's case fold, agreeing with the simple case folding of the `iu` regex flags LIKE used
 * before: upper- then lower-casing puts `ſ`/`s` and `ς`/`σ` together; casings that grow (`ß` → `SS`)
 * keep the plain lower case, and dotless `ı` stays apart from `i`, as it does there.
 */
function fold(ch: string): string {
  if (ch < '\u0080') return ch >= 'A' && ch <= 'Z' ? ch.toLowerCase() : ch;
  if (ch === '\u0131') return ch;
  const upper = ch.toUpperCase();
  return isSingleCodePoint(upper) ? upper.toLowerCase() : ch.toLowerCase();
}

/**
 * A pattern split at its `%`s: one segment when it has none, else the part before the first `%`, the
 * parts between, and the part after the last. A backslash escapes `%`, `_` and itself (`\%`, `\_`,
 * `\\` match a literal `%`, `_`, `\`); before anything else, or at the end, it is a literal backslash.
 */
function parseLike(pattern: string): Segment[] {
  const chars = Array.from(pattern);
  const segments: Token[][] = [[]];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    const segment = segments[segments.length - 1]!;
    if (ch === '\\' && ESCAPABLE.has(chars[i + 1] ?? '')) segment.push(fold(chars[++i]!));
    else if (ch === '%') segments.push([]);
    else if (ch === '_') segment.push(ONE);
    else segment.push(fold(ch));
  }
  return segments;
}

/** `text` with `%`, `_` and `\` escaped, so that as a LIKE pattern it matches itself only (in any case). */
export const escapeLike = (text: string): string => text.replace(/[%_\\]/g, '\\$&');

interface Counter {
  steps: number;
}

function matchesAt(text: readonly string[], at: number, segment: Segment, counter: Counter): boolean {
  for (let i = 0; i < segment.length; i++) {
    counter.steps++;
    const token = segment[i]!;
    if (token !== ONE && token !== text[at + i]) return false;
  }
  return true;
}

/** The leftmost start of `segment` within text[from, to), or -1. */
function findSegment(text: readonly string[], from: number, to: number, segment: Segment, counter: Counter): number {
  for (let at = from; at + segment.length <= to; at++) if (matchesAt(text, at, segment, counter)) return at;
  return -1;
}

/**
 * The first segment must match at the start and the last at the end; the ones between are found in
 * order, each at its leftmost place after the previous one, which is never worse than a later place.
 * No backtracking: each segment is searched once, so at most text × pattern comparisons.
 */
function matchSegments(text: readonly string[], segments: readonly Segment[], counter: Counter): boolean {
  const first = segments[0]!;
  if (segments.length === 1) return text.length === first.length && matchesAt(text, 0, first, counter);
  const last = segments[segments.length - 1]!;
  const end = text.length - last.length;
  if (end < first.length || !matchesAt(text, 0, first, counter) || !matchesAt(text, end, last, counter)) return false;
  let from = first.length;
  for (let i = 1; i < segments.length - 1; i++) {
    const at = findSegment(text, from, end, segments[i]!, counter);
    if (at < 0) return false;
    from = at + segments[i]!.length;
  }
  return true;
}

/**
 * SQL LIKE, case-insensitive, per code point: `%` any run, `_` one character, backslash escapes (see
 * parseLike). With the number of character comparisons made, which never exceeds
 * (text.length + 1) × (pattern.length + 1). Over-long texts and patterns do not match (0 steps).
 */
export function likeMatchSteps(text: string, pattern: string): { matched: boolean; steps: number } {
  if (text.length > MAX_LIKE_TEXT_LENGTH || pattern.length > MAX_LIKE_PATTERN_LENGTH) return { matched: false, steps: 0 };
  const counter: Counter = { steps: 0 };
  const matched = matchSegments(Array.from(text, fold), parseLike(pattern), counter);
  return { matched, steps: counter.steps };
}

export const likeMatch = (text: string, pattern: string): boolean => likeMatchSteps(text, pattern).matched;

function like(actual: unknown, pattern: string): boolean {
  const text = asText(actual);
  return text !== null && likeMatch(text, pattern);
}

function elements(actual: unknown): string[] {
  if (Array.isArray(actual)) return elementsAsText(actual);
  const text = asText(actual);
  return text === null ? [] : [text];
}

function isIn(actual: unknown, expected: string): boolean {
  const list = asList(expected);
  return elements(actual).some((element) => list.some((item) => sameItem(element, item)));
}

function allIn(actual: unknown, expected: string): boolean {
  const have = elements(actual);
  const list = asList(expected);
  return list.length > 0 && list.every((item) => have.some((element) => sameItem(element, item)));
}

/** The answer of one operator for a present (non-null) field. Never throws. */
export function applyOperator(operator: FilterOperator, actual: unknown, expected: string, as: Comparison): boolean {
  switch (operator) {
    case 'EQUAL':
      return equal(actual, expected, as);
    case 'NOT_EQUAL':
      return !equal(actual, expected, as);
    case 'LARGER':
      return order(actual, expected, as) === 1;
    case 'SMALLER':
      return order(actual, expected, as) === -1;
    case 'LARGER_EQUAL': {
      const o = order(actual, expected, as);
      return o !== null && o >= 0;
    }
    case 'SMALLER_EQUAL': {
      const o = order(actual, expected, as);
      return o !== null && o <= 0;
    }
    case 'BETWEEN':
      return between(actual, expected, as);
    case 'NOT_BETWEEN':
      return !between(actual, expected, as);
    case 'LIKE':
      return like(actual, expected);
    case 'NOT_LIKE':
      return !like(actual, expected);
    case 'IN':
      return isIn(actual, expected);
    case 'NOT_IN':
      return !isIn(actual, expected);
    case 'ANY_IN':
      return isIn(actual, expected);
    case 'ALL_IN':
      return allIn(actual, expected);
  }
}

/** A missing field fails every operator but the negative ones. */
export const passesWhenMissing = (operator: FilterOperator) => operator.startsWith('NOT_');
