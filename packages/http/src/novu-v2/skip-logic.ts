import { type Filter } from '@tidings/core';
import { filterListItems } from '@tidings/core/internal';
import { FILTER_ON, type FilterOn, type FilterOperator, type FilterPart } from '@tidings/core/schemas';

/**
 * Novu's `skip` control (JSON Logic: skip the step when it holds) and Tidings' step filters (run the
 * step when they pass), each written in the other's terms. Pure functions, no I/O.
 *
 * Tidings' filters are a list of groups: the list passes when any group passes; a group joins its
 * parts with AND or OR, and `isNegated` flips it. So `run = G1 ∨ … ∨ Gk` and `skip = ¬G1 ∧ … ∧ ¬Gk`:
 *
 * | `skip` (JSON Logic)                                  | Tidings filters                                   |
 * | ---------------------------------------------------- | ------------------------------------------------- |
 * | one condition `c`, or `{ and: [c…] }`                | one group, AND of the conditions, negated         |
 * | `{ or: [c…] }`                                       | one group, OR of the conditions, negated          |
 * | `{ "!": { and: [c…] } }` / `{ "!": { or: [c…] } }`    | one group, AND / OR of the conditions, not negated |
 * | `{ and: [X1, X2, …] }`, each X one of the above forms | one group per X                                  |
 *
 * A condition compares one variable (`{ "var": "payload.x" }`, `subscriber.…`, `tenant.…`, `actor.…`)
 * with literals: `==`, `!=`, `>`, `<`, `>=`, `<=` (EQUAL … SMALLER_EQUAL), `{ in: [var, [a, b]] }` (IN),
 * `{ "<=": [a, var, b] }` (BETWEEN, bounds included), and `!` around `in`, the three-argument `<=`,
 * `==` or `!=` (NOT_IN, NOT_BETWEEN, NOT_EQUAL, EQUAL). Anything else does not map and is refused.
 */

export type JsonLogic = Record<string, unknown>;

/** Where in `skip` a form does not map (`and[1]`, or '' for the whole), and why. */
export class SkipNotMappable extends Error {
  constructor(
    readonly at: string,
    readonly reason: string,
  ) {
    super(at ? `${at}: ${reason}` : reason);
  }
}

const COMPARISONS: Readonly<Record<string, FilterOperator>> = {
  '==': 'EQUAL',
  '!=': 'NOT_EQUAL',
  '>': 'LARGER',
  '<': 'SMALLER',
  '>=': 'LARGER_EQUAL',
  '<=': 'SMALLER_EQUAL',
};
const COMPARISON_OF: Partial<Record<FilterOperator, string>> = Object.fromEntries(Object.entries(COMPARISONS).map(([op, operator]) => [operator, op]));
/** The operator read with its two sides swapped: `5 < x` is `x > 5`. */
const SWAPPED: Readonly<Record<string, string>> = { '==': '==', '!=': '!=', '>': '<', '<': '>', '>=': '<=', '<=': '>=' };
/** `!` around these conditions flips them into another operator, missing fields included. */
const NEGATED: Partial<Record<FilterOperator, FilterOperator>> = { IN: 'NOT_IN', BETWEEN: 'NOT_BETWEEN', EQUAL: 'NOT_EQUAL', NOT_EQUAL: 'EQUAL' };

const FILTER_ROOTS = new Set<string>(FILTER_ON);
const CONNECTIVES = new Set(['and', 'or']);

type Literal = string | number | boolean;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The one operation of a JSON Logic node and its arguments (a lone argument is read as a list of one). */
function operationOf(node: unknown, at: string): [string, unknown[]] {
  if (!isRecord(node)) throw new SkipNotMappable(at, 'must be a JSON Logic operation, an object with one operator');
  const keys = Object.keys(node);
  if (keys.length !== 1) throw new SkipNotMappable(at, `must hold exactly one operator (found ${keys.length === 0 ? 'none' : keys.map((k) => `"${k}"`).join(', ')})`);
  const op = keys[0]!;
  const args = node[op];
  return [op, Array.isArray(args) ? args : [args]];
}

const isConnective = (node: unknown): boolean => isRecord(node) && Object.keys(node).length === 1 && CONNECTIVES.has(Object.keys(node)[0]!);
/** `{ "!": { and|or: … } }`: a group that runs when its conditions hold. */
function negatedConnective(node: unknown): unknown {
  if (!isRecord(node) || Object.keys(node).length !== 1 || !('!' in node)) return undefined;
  const inner = Array.isArray(node['!']) && node['!'].length === 1 ? node['!'][0] : node['!'];
  return isConnective(inner) ? inner : undefined;
}

/** `{ "var": "payload.a.b" }` as the filter's root and field; undefined when the node is no variable. */
function variableOf(node: unknown, at: string): { on: FilterOn; field: string } | undefined {
  if (!isRecord(node) || !('var' in node)) return undefined;
  if (Object.keys(node).length !== 1) throw new SkipNotMappable(at, '"var" must stand alone in its object');
  let path = node['var'];
  if (Array.isArray(path)) {
    if (path.length !== 1) throw new SkipNotMappable(at, '"var" with a default value does not map: a Tidings filter has no default for a missing field');
    path = path[0];
  }
  if (typeof path !== 'string') throw new SkipNotMappable(at, '"var" must name a path such as "payload.plan"');
  const dot = path.indexOf('.');
  const root = dot < 0 ? path : path.slice(0, dot);
  const field = dot < 0 ? '' : path.slice(dot + 1);
  if (!FILTER_ROOTS.has(root)) throw new SkipNotMappable(at, `the variable "${path}" does not map: Tidings filters read ${FILTER_ON.map((r) => `${r}.…`).join(', ')}`);
  if (field === '' || field.split('.').some((segment) => segment === '')) throw new SkipNotMappable(at, `the variable "${path}" must name a field inside ${root}`);
  // steps.* holds http, custom and branch results; a digest's count is not one of them, and would never match.
  if (root === 'steps' && /\.(eventCount|events)$/.test(field)) throw new SkipNotMappable(at, `the variable "${path}" does not map: a digest's events are not a step result in Tidings (steps.… holds http_request and custom steps' results)`);
  return { on: root as FilterOn, field };
}

function literalText(value: unknown, at: string): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (value === null) throw new SkipNotMappable(at, 'comparing with null does not map: a Tidings filter on a missing field fails (or, for NOT_ operators, passes) instead');
  throw new SkipNotMappable(at, 'must compare a variable with a string, number or boolean');
}

/** `true`/`false` as booleans and numbers as numbers (when their text reads back the same), else the text. */
function literalOf(text: string): Literal {
  if (text === 'true') return true;
  if (text === 'false') return false;
  const n = Number(text);
  if (text.trim() !== '' && Number.isFinite(n) && String(n) === text) return n;
  return text;
}

/** Items as a Tidings list value: comma-separated when that reads back the same, else a JSON array. */
export function listValue(items: readonly string[]): string {
  const joined = items.join(',');
  const plain = items.every((item) => item !== '' && item === item.trim() && !item.includes(',')) && !joined.trimStart().startsWith('[');
  return plain ? joined : JSON.stringify(items);
}

function comparison(op: string, args: unknown[], at: string): FilterPart {
  if (op === '<=' && args.length === 3) {
    const v = variableOf(args[1], `${at}[1]`);
    if (!v || variableOf(args[0], at) || variableOf(args[2], at)) throw new SkipNotMappable(at, 'a three-argument "<=" (between) needs the variable in the middle: { "<=": [low, { "var": … }, high] }');
    const low = literalText(args[0], `${at}[0]`);
    const high = literalText(args[2], `${at}[2]`);
    if (low.includes(',') || high.includes(',')) throw new SkipNotMappable(at, 'the bounds of a between must not contain a comma');
    return { ...v, operator: 'BETWEEN', value: `${low},${high}` };
  }
  if (args.length !== 2) throw new SkipNotMappable(at, `"${op}" must compare exactly two values${op === '<' ? ' (a three-argument "<" excludes its bounds; Tidings\' BETWEEN includes them: use "<=")' : ''}`);
  const left = variableOf(args[0], `${at}[0]`);
  const right = variableOf(args[1], `${at}[1]`);
  if ((left && right) || (!left && !right)) throw new SkipNotMappable(at, `"${op}" must compare one variable with one literal`);
  const v = (left ?? right)!;
  const read = left ? op : SWAPPED[op]!;
  return { ...v, operator: COMPARISONS[read]!, value: literalText(left ? args[1] : args[0], `${at}[${left ? 1 : 0}]`) };
}

function membership(args: unknown[], at: string): FilterPart {
  if (args.length !== 2) throw new SkipNotMappable(at, '"in" must have two arguments');
  const v = variableOf(args[0], `${at}[0]`);
  if (!v) {
    if (variableOf(args[1], `${at}[1]`)) {
      throw new SkipNotMappable(at, '"in" on a text (substring, "contains") does not map: Tidings has LIKE, which ignores case');
    }
    throw new SkipNotMappable(at, '"in" must test a variable against a list: { "in": [{ "var": … }, [a, b]] }');
  }
  if (!Array.isArray(args[1])) throw new SkipNotMappable(at, '"in" must test the variable against a list of literals (a substring test does not map)');
  if (args[1].length === 0) throw new SkipNotMappable(at, '"in" needs at least one value');
  return { ...v, operator: 'IN', value: listValue(args[1].map((item, i) => literalText(item, `${at}[1][${i}]`))) };
}

/** One JSON Logic condition as a filter part. */
function conditionOf(node: unknown, at: string): FilterPart {
  const [op, args] = operationOf(node, at);
  const here = `${at}${at ? '.' : ''}${op}`;
  if (op in COMPARISONS) return comparison(op, args, here);
  if (op === 'in') return membership(args, here);
  if (op === '!') {
    if (args.length !== 1) throw new SkipNotMappable(here, '"!" takes one argument');
    const inner = conditionOf(args[0], here);
    const flipped = NEGATED[inner.operator];
    if (!flipped) throw new SkipNotMappable(here, `"!" around "${COMPARISON_OF[inner.operator] ?? inner.operator}" does not map (a missing field would be read differently); write the opposite comparison`);
    return { ...inner, operator: flipped };
  }
  if (op === '===' || op === '!==') throw new SkipNotMappable(here, `"${op}" does not map: Tidings compares values loosely (the number 5 equals "5"); use "${op === '===' ? '==' : '!='}"`);
  if (CONNECTIVES.has(op)) throw new SkipNotMappable(here, `"${op}" nested this deep does not map: Tidings filter groups hold conditions, not further groups`);
  if (op === 'var') throw new SkipNotMappable(here, 'a bare variable does not map: compare it, e.g. { "==": [{ "var": … }, true] }');
  throw new SkipNotMappable(here, `the operator "${op}" has no Tidings filter equivalent`);
}

function conditionsOf(args: unknown[], at: string): FilterPart[] {
  if (args.length === 0) throw new SkipNotMappable(at, 'needs at least one condition');
  return args.map((item, i) => conditionOf(item, `${at}[${i}]`));
}

/** A connective as one group; `runsWhenTrue` for `!` around it, else the group is negated (skip when it holds). */
function groupOf(node: unknown, at: string, runsWhenTrue: boolean): Filter {
  const [op, args] = operationOf(node, at);
  const here = `${at}${at ? '.' : ''}${op}`;
  return { isNegated: !runsWhenTrue, type: 'GROUP', value: op === 'or' ? 'OR' : 'AND', children: conditionsOf(args, here) };
}

/**
 * Novu's `skip` as Tidings step filters (see the table above); an empty object means no conditions.
 * Throws SkipNotMappable naming where in `skip` a form has no Tidings equivalent.
 */
export function filtersFromSkip(skip: JsonLogic): Filter[] {
  if (Object.keys(skip).length === 0) return [];
  const [op, args] = operationOf(skip, '');
  const inner = negatedConnective(skip);
  if (inner !== undefined) return [groupOf(inner, '!', true)];
  if (op === 'or') return [groupOf(skip, '', false)];
  if (op !== 'and') return [{ isNegated: true, type: 'GROUP', value: 'AND', children: [conditionOf(skip, '')] }];
  if (args.length === 0) throw new SkipNotMappable('and', 'needs at least one condition');
  if (!args.some((item) => isConnective(item) || negatedConnective(item) !== undefined)) return [groupOf(skip, '', false)];
  // An AND of groups: skip when all hold, so the step runs when any of them does not — one group each.
  return args.map((item, i): Filter => {
    const at = `and[${i}]`;
    const negated = negatedConnective(item);
    if (negated !== undefined) return groupOf(negated, `${at}.!`, true);
    if (isConnective(item)) return groupOf(item, at, false);
    return { isNegated: true, type: 'GROUP', value: 'AND', children: [conditionOf(item, at)] };
  });
}

const variable = (part: FilterPart) => ({ var: `${part.on}.${part.field}` });

/** A filter part as a JSON Logic condition; null when it has no JSON Logic form (LIKE, ANY_IN, ALL_IN, rawPattern…). */
function partLogic(part: FilterPart): JsonLogic | null {
  if (part.rawPattern !== undefined || part.field === '' || !FILTER_ROOTS.has(part.on)) return null;
  const op = COMPARISON_OF[part.operator];
  if (op) return { [op]: [variable(part), literalOf(part.value)] };
  switch (part.operator) {
    case 'IN':
    case 'NOT_IN': {
      const items = filterListItems(part.value);
      if (items.length === 0) return null;
      const test = { in: [variable(part), items.map(literalOf)] };
      return part.operator === 'IN' ? test : { '!': test };
    }
    case 'BETWEEN':
    case 'NOT_BETWEEN': {
      const bounds = part.value.split(',');
      if (bounds.length !== 2) return null;
      const test = { '<=': [literalOf(bounds[0]!), variable(part), literalOf(bounds[1]!)] };
      return part.operator === 'BETWEEN' ? test : { '!': test };
    }
    default:
      return null;
  }
}

/**
 * The step is skipped when this group does not pass: the group's condition, negated unless the group
 * already is. `alone`: the only group, so a negated AND of one condition is written as that condition.
 */
function groupSkipLogic(group: Filter, alone: boolean): JsonLogic | null {
  if (group.type !== 'GROUP' || group.children.length === 0) return null;
  const children = group.children.map(partLogic);
  if (children.some((c) => c === null)) return null;
  if (alone && group.isNegated && group.value === 'AND' && children.length === 1) return children[0]!;
  const joined = { [group.value === 'OR' ? 'or' : 'and']: children };
  return group.isNegated ? joined : { '!': joined };
}

/**
 * Tidings step filters as Novu's `skip`: undefined when there are none, null when they have no JSON
 * Logic form that reads back to the same filters (then the response leaves `skip` out and says so).
 */
export function skipFromFilters(filters: readonly Filter[]): JsonLogic | undefined | null {
  if (filters.length === 0) return undefined;
  const groups = filters.map((group) => groupSkipLogic(group, filters.length === 1));
  if (groups.some((g) => g === null)) return null;
  return groups.length === 1 ? groups[0]! : { and: groups };
}
