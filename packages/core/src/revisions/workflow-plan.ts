import type { Workflow } from '../schemas/index.js';
import { sameDefinition } from './workflow-definition.js';
import { diffLines, diffWorkflows, type WorkflowChange } from './workflow-diff.js';

/** A workflow file as it would be stored: built against the stored workflow of its identifier. */
export interface PlannedFile {
  readonly file: string;
  readonly workflow: Workflow;
}

/** What applying a folder of workflow files does, workflow by workflow. */
export interface WorkflowPlan {
  readonly added: readonly { readonly file: string; readonly identifier: string }[];
  readonly changed: readonly { readonly file: string; readonly identifier: string; readonly changes: readonly WorkflowChange[] }[];
  readonly unchanged: readonly { readonly file: string; readonly identifier: string }[];
  /** Stored workflows no file names (only with `prune`). */
  readonly removed: readonly { readonly identifier: string }[];
}

/**
 * The plan from the stored workflows (`current`, code workflows left out by the caller) to the files:
 * a file whose identifier is not stored adds it, one whose definition differs changes it (with the
 * diff), the others change nothing; with `prune`, stored workflows no file names are removed. Pure.
 */
export function planWorkflows(current: readonly Workflow[], files: readonly PlannedFile[], prune: boolean): WorkflowPlan {
  const stored = new Map(current.map((w) => [w.identifier, w] as const));
  const named = new Set(files.map((f) => f.workflow.identifier));
  const added: WorkflowPlan['added'][number][] = [];
  const changed: WorkflowPlan['changed'][number][] = [];
  const unchanged: WorkflowPlan['unchanged'][number][] = [];
  for (const { file, workflow } of files) {
    const before = stored.get(workflow.identifier);
    const identifier = workflow.identifier;
    if (!before) added.push({ file, identifier });
    else if (sameDefinition(before, workflow)) unchanged.push({ file, identifier });
    else changed.push({ file, identifier, changes: diffWorkflows(before, workflow) });
  }
  const removed = prune ? current.filter((w) => !named.has(w.identifier)).map((w) => ({ identifier: w.identifier })) : [];
  return { added, changed, unchanged, removed };
}

/** Whether the plan changes nothing. */
export const isEmptyPlan = (plan: WorkflowPlan): boolean => plan.added.length + plan.changed.length + plan.removed.length === 0;

/** The plan as lines for a terminal: each workflow added, changed (with its diff, indented) or removed, then a count. Pure. */
export function planLines(plan: WorkflowPlan): string[] {
  const lines: string[] = [];
  for (const a of plan.added) lines.push(`+ ${a.identifier} (${a.file}): added`);
  for (const c of plan.changed) lines.push(`~ ${c.identifier} (${c.file}): changed`, ...diffLines(c.changes).map((line) => `    ${line}`));
  for (const r of plan.removed) lines.push(`- ${r.identifier}: removed`);
  lines.push(
    isEmptyPlan(plan)
      ? `No changes: ${plan.unchanged.length} workflow${plan.unchanged.length === 1 ? '' : 's'} as stored.`
      : `${plan.added.length} to add, ${plan.changed.length} to change, ${plan.removed.length} to remove, ${plan.unchanged.length} unchanged.`,
  );
  return lines;
}
