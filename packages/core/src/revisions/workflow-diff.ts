import type { Step, Workflow } from '../schemas/index.js';
import { canonicalJson, definitionOf } from './workflow-definition.js';

/**
 * One difference between two workflows. `path` names the member: a workflow member (`name`,
 * `preferenceSettings.email`), or a step's (`steps[<step id>].template.content`), or the step itself
 * (`steps[<step id>]`) when it was added, removed or moved.
 */
export interface WorkflowChange {
  readonly path: string;
  readonly change: 'added' | 'removed' | 'changed' | 'moved';
  readonly before?: unknown;
  readonly after?: unknown;
  /** For a step's change: where it is (1-based, in the workflow after the change; before it when removed), its type and id. */
  readonly step?: { readonly position: number; readonly type: string; readonly id: string };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The leaves that differ between two JSON values, objects compared member by member, anything else whole. */
function leafChanges(before: unknown, after: unknown, path: string, out: WorkflowChange[], step?: WorkflowChange['step']): void {
  if (canonicalJson(before) === canonicalJson(after)) return;
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    for (const key of keys) leafChanges(before[key], after[key], path ? `${path}.${key}` : key, out, step);
    return;
  }
  const where = step ? { step } : {};
  if (before === undefined) out.push({ path, change: 'added', after, ...where });
  else if (after === undefined) out.push({ path, change: 'removed', before, ...where });
  else out.push({ path, change: 'changed', before, after, ...where });
}

/** A step's key: its id, else its position (a step saved by `upsert` always has an id). */
const stepKey = (step: Step, index: number) => step._id ?? `#${index + 1}`;

/**
 * What changed from `before` to `after`, member by member; steps are matched by id, so an edited step
 * is a change of its members, not a removal and an addition. Bookkeeping members (instants, revision,
 * environment) are no change. Pure.
 */
export function diffWorkflows(before: Workflow, after: Workflow): WorkflowChange[] {
  const out: WorkflowChange[] = [];
  const { steps: stepsBefore, ...restBefore } = definitionOf(before) as Record<string, unknown> & { steps: Step[] };
  const { steps: stepsAfter, ...restAfter } = definitionOf(after) as Record<string, unknown> & { steps: Step[] };
  leafChanges(restBefore, restAfter, '', out);
  const beforeAt = new Map(stepsBefore.map((s, i) => [stepKey(s, i), i] as const));
  const afterKeys = new Set(stepsAfter.map(stepKey));
  // A step moved when its place among the steps both sides have changed (an insertion before it is no move).
  const keptBefore = stepsBefore.map(stepKey).filter((key) => afterKeys.has(key));
  const keptAfter = stepsAfter.map(stepKey).filter((key) => beforeAt.has(key));
  stepsAfter.forEach((step, index) => {
    const key = stepKey(step, index);
    const where = { position: index + 1, type: step.template.type, id: key };
    const path = `steps[${key}]`;
    const from = beforeAt.get(key);
    if (from === undefined) {
      out.push({ path, change: 'added', after: step, step: where });
      return;
    }
    if (keptBefore.indexOf(key) !== keptAfter.indexOf(key)) out.push({ path, change: 'moved', before: from + 1, after: index + 1, step: where });
    leafChanges(stepsBefore[from], step, path, out, where);
  });
  stepsBefore.forEach((step, index) => {
    const key = stepKey(step, index);
    if (!afterKeys.has(key)) out.push({ path: `steps[${key}]`, change: 'removed', before: step, step: { position: index + 1, type: step.template.type, id: key } });
  });
  return out;
}

/** A value as a diff line shows it: JSON, cut to 80 characters. */
function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

/** One line per change, as a terminal or a review shows them: `+` added, `-` removed, `~` changed or moved. Pure. */
export function diffLines(changes: readonly WorkflowChange[]): string[] {
  return changes.map((c) => {
    const step = c.step ? `step ${c.step.position} (${c.step.type} "${c.step.id}")` : '';
    const member = c.step ? c.path.slice(`steps[${c.step.id}]`.length).replace(/^\./, '') : c.path;
    const subject = [step, member].filter(Boolean).join(' ');
    if (c.change === 'moved') return `~ ${subject}: moved from position ${String(c.before)}`;
    if (c.step && member === '') return c.change === 'added' ? `+ ${subject}: added` : `- ${subject}: removed`;
    if (c.change === 'added') return `+ ${subject}: ${shown(c.after)}`;
    if (c.change === 'removed') return `- ${subject}: was ${shown(c.before)}`;
    return `~ ${subject}: ${shown(c.before)} → ${shown(c.after)}`;
  });
}
