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

const likeCache = new Map<string, RegExp>();

function likePattern(pattern: string): RegExp {
  let regex = likeCache.get(pattern);
  if (!regex) {
    const source = [...pattern]
      .map((ch) => (ch === '%' ? '[\\s\\S]*' : ch === '_' ? '[\\s\\S]' : ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')))
      .join('');
    regex = new RegExp(`^${source}$`, 'iu');
    if (likeCache.size < 1_000) likeCache.set(pattern, regex);
  }
  return regex;
}

function like(actual: unknown, pattern: string): boolean {
  const text = asText(actual);
  return text !== null && likePattern(pattern).test(text);
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
