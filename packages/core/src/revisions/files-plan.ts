import { KIND_RULES, REVISIONED_KINDS, sameDefinition, type KindRules, type RevisionedKind } from './kinds.js';
import type { RevisionChange } from './record-diff.js';
import { diffLines } from './record-diff.js';

/** A file as it would be stored: built over the stored value of its name. */
export interface PlannedFile<T> {
  readonly file: string;
  readonly value: T;
}

/** One thing a plan names: its kind, its name and the file that says it. */
export interface PlanEntry {
  readonly kind: RevisionedKind;
  readonly file: string;
  readonly identifier: string;
}

/** What applying a folder of files does, one entry per workflow, layout, partial or catalog. */
export interface WorkflowPlan {
  readonly added: readonly PlanEntry[];
  readonly changed: readonly (PlanEntry & { readonly changes: readonly RevisionChange[] })[];
  readonly unchanged: readonly PlanEntry[];
  /** Stored ones no file names (only for the kinds pruned). */
  readonly removed: readonly { readonly kind: RevisionedKind; readonly identifier: string }[];
}

/**
 * The plan of one kind from what is stored (`current`, code workflows left out by the caller) to the
 * files: a file whose name is not stored adds it, one whose definition differs changes it (with the
 * diff), the others change nothing; with `prune`, stored ones no file names are removed. Pure.
 */
export function planKind<T extends object>(rules: KindRules<T>, current: readonly T[], files: readonly PlannedFile<T>[], prune: boolean): WorkflowPlan {
  const stored = new Map(current.map((value) => [rules.nameOf(value), value] as const));
  const named = new Set(files.map((f) => rules.nameOf(f.value)));
  const added: PlanEntry[] = [];
  const changed: WorkflowPlan['changed'][number][] = [];
  const unchanged: PlanEntry[] = [];
  for (const { file, value } of files) {
    const entry = { kind: rules.kind, file, identifier: rules.nameOf(value) };
    const before = stored.get(entry.identifier);
    if (!before) added.push(entry);
    else if (sameDefinition(rules, before, value)) unchanged.push(entry);
    else changed.push({ ...entry, changes: rules.diff(before, value) });
  }
  const removed = prune ? current.filter((value) => !named.has(rules.nameOf(value))).map((value) => ({ kind: rules.kind, identifier: rules.nameOf(value) })) : [];
  return { added, changed, unchanged, removed };
}

/** The plans of several kinds as one. */
export const joinPlans = (plans: readonly WorkflowPlan[]): WorkflowPlan => ({
  added: plans.flatMap((p) => p.added),
  changed: plans.flatMap((p) => p.changed),
  unchanged: plans.flatMap((p) => p.unchanged),
  removed: plans.flatMap((p) => p.removed),
});

/** Whether the plan changes nothing. */
export const isEmptyPlan = (plan: WorkflowPlan): boolean => plan.added.length + plan.changed.length + plan.removed.length === 0;

/** How a line names one: a workflow by its identifier alone (most files are workflows), the others after their kind. */
const named = (kind: RevisionedKind, identifier: string) => (kind === 'workflows' ? identifier : `${KIND_RULES[kind].noun[0]} ${identifier}`);
const counted = (kind: RevisionedKind, n: number) => `${n} ${KIND_RULES[kind].noun[n === 1 ? 0 : 1]}`;

/** The plan as lines for a terminal: each one added, changed (with its diff, indented) or removed, then a count. Pure. */
export function planLines(plan: WorkflowPlan): string[] {
  const lines: string[] = [];
  for (const a of plan.added) lines.push(`+ ${named(a.kind, a.identifier)} (${a.file}): added`);
  for (const c of plan.changed) lines.push(`~ ${named(c.kind, c.identifier)} (${c.file}): changed`, ...diffLines(c.changes).map((line) => `    ${line}`));
  for (const r of plan.removed) lines.push(`- ${named(r.kind, r.identifier)}: removed`);
  if (!isEmptyPlan(plan)) {
    lines.push(`${plan.added.length} to add, ${plan.changed.length} to change, ${plan.removed.length} to remove, ${plan.unchanged.length} unchanged.`);
    return lines;
  }
  // Workflows are always counted; the other kinds when files named some.
  const counts = REVISIONED_KINDS.map((kind) => [kind, plan.unchanged.filter((u) => u.kind === kind).length] as const).filter(([kind, n]) => kind === 'workflows' || n > 0);
  const listed = counts.map(([kind, n]) => counted(kind, n));
  lines.push(`No changes: ${listed.length > 1 ? `${listed.slice(0, -1).join(', ')} and ${listed.at(-1)!}` : listed[0]!} as stored.`);
  return lines;
}
