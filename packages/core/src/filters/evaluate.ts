import type { Filter, FilterOn, FilterOperator, FilterPart } from '../schemas/index.js';
import { renderTemplate } from '../templates/render.js';
import { readPath } from '../util/path.js';
import { applyOperator, comparisonFor, passesWhenMissing } from './operators.js';

/** What filters read: `on` names the root, `field` a dot path inside it. */
export type FilterContext = Partial<Record<FilterOn, unknown>>;

export interface PartTrace {
  readonly on: FilterOn;
  readonly field: string;
  readonly operator: FilterOperator;
  /** The filter's value after `{{ }}` rendering. */
  readonly expected: string;
  readonly actual: unknown;
  readonly passed: boolean;
}

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

function expectedValue(value: string, context: FilterContext): string {
  if (!value.includes('{{')) return value;
  try {
    return renderTemplate(value, context as Record<string, unknown>);
  } catch {
    return value;
  }
}

function explainPart(part: FilterPart, type: Filter['type'], context: FilterContext): PartTrace {
  const raw = readPath(context[part.on], part.field);
  const actual = raw === null ? undefined : raw;
  const expected = expectedValue(part.value, context);
  const passed =
    actual === undefined
      ? passesWhenMissing(part.operator)
      : applyOperator(part.operator, actual, expected, comparisonFor(type, actual));
  return { on: part.on, field: part.field, operator: part.operator, expected, actual, passed };
}

function explainGroup(group: Filter, context: FilterContext): GroupTrace {
  const parts = group.children.map((part) => explainPart(part, group.type, context));
  const combined =
    parts.length === 0 || (group.value === 'OR' ? parts.some((p) => p.passed) : parts.every((p) => p.passed));
  return { value: group.value, isNegated: group.isNegated, passed: group.isNegated ? !combined : combined, parts };
}

/**
 * Why a list of filter groups passes or not. The list passes when it is empty or any group passes;
 * a group combines its parts with AND/OR (no parts: passes) and `isNegated` flips its result.
 */
export function explainFilters(filters: readonly Filter[], context: FilterContext): FilterTrace {
  const groups = filters.map((group) => explainGroup(group, context));
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
