import type { Step, Workflow } from '../schemas/index.js';
import { definitionOf, WORKFLOW_BOOKKEEPING } from './definition.js';
import { leafChanges, type RevisionChange } from './record-diff.js';

/** A step's key: its id, else its position (a step saved by `upsert` always has an id). */
const stepKey = (step: Step, index: number) => step._id ?? `#${index + 1}`;

/**
 * What changed from `before` to `after`, member by member; steps are matched by id, so an edited step
 * is a change of its members, not a removal and an addition. Bookkeeping members (instants, revision,
 * environment) are no change. Pure.
 */
export function diffWorkflows(before: Workflow, after: Workflow): RevisionChange[] {
  const out: RevisionChange[] = [];
  const { steps: stepsBefore, ...restBefore } = definitionOf(before, WORKFLOW_BOOKKEEPING) as Record<string, unknown> & { steps: Step[] };
  const { steps: stepsAfter, ...restAfter } = definitionOf(after, WORKFLOW_BOOKKEEPING) as Record<string, unknown> & { steps: Step[] };
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
