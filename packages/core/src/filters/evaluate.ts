import type { Filter, FilterOn, FilterPart } from '../schemas/index.js';
import type { PartTrace } from '../schemas/decision-record.js';
import { renderTemplate } from '../templates/render.js';
import { readPath } from '../util/path.js';
import { applyOperator, comparisonFor, escapeLike, passesWhenMissing } from './operators.js';

/** What filters read: `on` names the root, `field` a dot path inside it. */
export type FilterContext = Partial<Record<FilterOn, unknown>>;

export type { PartTrace } from '../schemas/decision-record.js';

export interface GroupTrace {
  readonly value: 'AND' | 'OR';
  readonly isNegated: boolean;
  readonly passed: boolean;
  readonly parts: readonly PartTrace[];
}

export interface FilterTrace {
  readonly passed: boolean;
  readonly groups: readonly GroupTrace[];
}

/** What `{{ }}` in values render against: the context, and (made on first use) its LIKE-escaped copy. */
interface RenderVariables {
  readonly plain: Record<string, unknown>;
  escaped(): Record<string, unknown>;
}

function renderVariables(context: FilterContext): RenderVariables {
  let escaped: Record<string, unknown> | undefined;
  return { plain: context, escaped: () => (escaped ??= escapeStrings(context) as Record<string, unknown>) };
}

const isPlainObject = (value: object): value is Record<string, unknown> => {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

/** A copy of `value` whose strings are LIKE-escaped; a shared or cyclic object is copied once. */
function escapeStrings(value: unknown, copies = new Map<object, unknown>()): unknown {
  if (typeof value === 'string') return escapeLike(value);
  if (typeof value !== 'object' || value === null) return value;
  if (copies.has(value)) return copies.get(value);
  if (Array.isArray(value)) {
    const copy: unknown[] = [];
    copies.set(value, copy);
    for (const item of value) copy.push(escapeStrings(item, copies));
    return copy;
  }
  if (!isPlainObject(value)) return value;
  const copy: Record<string, unknown> = {};
  copies.set(value, copy);
  for (const [key, item] of Object.entries(value)) copy[key] = escapeStrings(item, copies);
  return copy;
}

/**
 * LIKE reads `%`, `_` and `\` in its pattern, so data rendered into one is escaped: whoever sends the
 * payload cannot turn a value into wildcards. `rawPattern: true` on the part lets rendered data carry them.
 */
const escapesRenderedData = (part: FilterPart) => (part.operator === 'LIKE' || part.operator === 'NOT_LIKE') && part.rawPattern !== true;

function expectedValue(part: FilterPart, variables: RenderVariables): string {
  if (!part.value.includes('{{')) return part.value;
  try {
    return renderTemplate(part.value, escapesRenderedData(part) ? variables.escaped() : variables.plain);
  } catch {
    return part.value;
  }
}

function explainPart(part: FilterPart, type: Filter['type'], context: FilterContext, variables: RenderVariables): PartTrace {
  const raw = readPath(context[part.on], part.field);
  const actual = raw === null ? undefined : raw;
  const expected = expectedValue(part, variables);
  const passed =
    actual === undefined
      ? passesWhenMissing(part.operator)
      : applyOperator(part.operator, actual, expected, comparisonFor(type, actual));
  return { on: part.on, field: part.field, operator: part.operator, expected, actual, passed };
}

function explainGroup(group: Filter, context: FilterContext, variables: RenderVariables): GroupTrace {
  const parts = group.children.map((part) => explainPart(part, group.type, context, variables));
  const combined =
    parts.length === 0 || (group.value === 'OR' ? parts.some((p) => p.passed) : parts.every((p) => p.passed));
  return { value: group.value, isNegated: group.isNegated, passed: group.isNegated ? !combined : combined, parts };
}

/**
 * Why a list of filter groups passes or not. The list passes when it is empty or any group passes;
 * a group combines its parts with AND/OR (no parts: passes) and `isNegated` flips its result.
 */
export function explainFilters(filters: readonly Filter[], context: FilterContext): FilterTrace {
  const variables = renderVariables(context);
  const groups = filters.map((group) => explainGroup(group, context, variables));
  return { passed: groups.length === 0 || groups.some((g) => g.passed), groups };
}

/** True when the filters let the step (or integration) through for this context. Never throws. */
export function evaluateFilters(filters: readonly Filter[], context: FilterContext): boolean {
  return explainFilters(filters, context).passed;
}

/** The first part that failed, for decision traces; null when none did. */
export function firstFailure(trace: FilterTrace): PartTrace | null {
  for (const group of trace.groups) for (const part of group.parts) if (!part.passed) return part;
  return null;
}
