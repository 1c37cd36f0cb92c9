import { z } from 'zod';
import { isTidingsError, notFound, TidingsError, type FieldIssue } from '../../errors.js';
import { issuesText } from '../../listed-issues.js';
import {
  idSchema,
  revisionHistoryQuerySchema,
  revisionNumberSchema,
  workflowFilesInputSchema,
  workflowWriteOptionsSchema,
  type RevisionHistoryQuery,
  type Workflow,
  type WorkflowFilesInput,
  type WorkflowRevision,
  type WorkflowWriteOptions,
} from '../../schemas/index.js';
import type { StorageRepositories } from '../../storage.js';
import { parseInput } from '../../validation.js';
import type { EngineContext } from '../context.js';
import { buildWorkflow, matchOf, parseWorkflow, writeWorkflow, type ParsedWorkflow } from '../catalog/workflow-writes.js';
import { getRevision, revisionsOf, workflowIdOfIdentifier } from './revision-records.js';
import { diffLines, diffWorkflows, type WorkflowChange } from '../../revisions/workflow-diff.js';
import { isEmptyPlan, planLines, planWorkflows, type WorkflowPlan } from '../../revisions/workflow-plan.js';
import { workflowFile, workflowFileNames } from '../../revisions/workflow-file.js';

/** What `workflows.diff` answers: the changes from revision `from` to `to`, and the same as lines. */
export interface RevisionDiff {
  readonly from: number;
  readonly to: number;
  readonly changes: readonly WorkflowChange[];
  readonly lines: readonly string[];
}

/** What `workflows.plan` and `workflows.apply` answer: the plan, as lines too, and whether it was applied. */
export interface WorkflowApply {
  readonly plan: WorkflowPlan;
  readonly lines: readonly string[];
  /** False for a plan, and for an apply that found nothing to change. */
  readonly applied: boolean;
}

/** A file's issues, named by file and field (`welcome.json:steps[0].template.type`). */
const inFile = (file: string, issues: readonly FieldIssue[]): FieldIssue[] => issues.map((i) => ({ path: `${file}:${i.path}`, message: i.message }));

/** Revisions of stored workflows, and workflows kept as files: history, diff, rollback, plan, apply. */
export function revisionsApi(ctx: EngineContext) {
  const { storage, env } = ctx;

  /** The `_id` a reference names: a workflow's, or (after its deletion) the one its revisions carry. */
  async function workflowIdOf(ref: string): Promise<string> {
    parseInput(idSchema, ref, 'workflow reference');
    const workflow = await storage.workflows.find(env, ref);
    const id = workflow?._id ?? (await workflowIdOfIdentifier(storage.records, env, ref));
    if (id === null) throw notFound('Workflow', ref);
    return id;
  }

  /** A revision number, refused naming `field` when it is none. */
  const checkRevision = (revision: number, field: string) => parseInput(z.strictObject({ [field]: revisionNumberSchema }), { [field]: revision }, 'revision');

  async function requireRevision(ref: string, revision: number, field: string): Promise<WorkflowRevision> {
    checkRevision(revision, field);
    const found = await getRevision(storage.records, env, await workflowIdOf(ref), revision);
    if (!found) throw new TidingsError('not_found', `Workflow "${ref}" has no revision ${revision}`, { issues: [{ path: field, message: 'no such revision' }] });
    return found;
  }

  /** Every file checked, each issue named by file and field, before anything is read or written. */
  function checkFiles(input: WorkflowFilesInput) {
    const { files, prune, by } = parseInput(workflowFilesInputSchema, input, 'workflow files');
    const issues: FieldIssue[] = [];
    const checked: { file: string; parsed: ParsedWorkflow }[] = [];
    const seen = new Map<string, string>();
    for (const { file, workflow } of files) {
      try {
        const parsed = parseWorkflow(ctx, workflow);
        const identifier = parsed.triggers[0]!.identifier;
        const other = seen.get(identifier);
        if (other !== undefined) issues.push({ path: `${file}:triggers[0].identifier`, message: `"${identifier}" is also the identifier in ${other}` });
        seen.set(identifier, file);
        checked.push({ file, parsed });
      } catch (error) {
        if (!isTidingsError(error, 'validation_failed')) throw error;
        issues.push(...inFile(file, error.issues.length > 0 ? error.issues : [{ path: '', message: error.message }]));
      }
    }
    if (issues.length > 0) throw new TidingsError('validation_failed', `Invalid workflow files (nothing was applied): ${issuesText(issues)}`, { issues });
    return { checked, prune, by: by ?? 'code' };
  }

  /** The plan of checked files against the workflows stored in `repos`; a file naming a code workflow refuses it all. */
  async function planOver(repos: Pick<StorageRepositories, 'workflows'>, checked: readonly { file: string; parsed: ParsedWorkflow }[], prune: boolean): Promise<WorkflowPlan> {
    const all = await repos.workflows.list(env);
    const code = new Set(all.filter((w) => w._creatorId === 'code').map((w) => w.identifier));
    const stored = all.filter((w) => w._creatorId !== 'code');
    const issues = checked.flatMap(({ file, parsed }) =>
      code.has(parsed.triggers[0]!.identifier) ? [{ path: `${file}:triggers[0].identifier`, message: `"${parsed.triggers[0]!.identifier}" is a workflow written in code: change it there` }] : [],
    );
    if (issues.length > 0) throw new TidingsError('validation_failed', `Invalid workflow files (nothing was applied): ${issuesText(issues)}`, { issues });
    const find = (ref: string) => stored.find((w) => w._id === ref) ?? stored.find((w) => w.identifier === ref) ?? stored.find((w) => w.slug === ref) ?? null;
    const files = await Promise.all(checked.map(async ({ file, parsed }) => ({ file, workflow: buildWorkflow(ctx, parsed, await matchOf(find, parsed)) })));
    return planWorkflows(stored, files, prune);
  }

  return {
    /**
     * Every stored workflow as a file (name and JSON), oldest first: what `apply` takes back, in this
     * environment or another. Workflows written in code are left out (their file is the code).
     */
    async exportFiles(): Promise<{ file: string; workflow: Record<string, unknown> }[]> {
      const stored = (await storage.workflows.list(env)).filter((w) => w._creatorId !== 'code');
      const names = workflowFileNames(stored.map((w) => w.identifier));
      return stored.map((w, i) => ({ file: names[i]!, workflow: workflowFile(w) }));
    },
    /** A stored workflow's revisions, newest first (`limit`, default 50, at most 500); its deletion keeps them. */
    async history(ref: string, query: RevisionHistoryQuery = {}): Promise<WorkflowRevision[]> {
      const { limit } = parseInput(revisionHistoryQuerySchema, query, 'history query');
      return revisionsOf(storage.records, env, await workflowIdOf(ref), limit);
    },
    /** One revision of a workflow, or null when it has none of that number. */
    async revision(ref: string, revision: number): Promise<WorkflowRevision | null> {
      checkRevision(revision, 'revision');
      return getRevision(storage.records, env, await workflowIdOf(ref), revision);
    },
    /** What changed from revision `from` to revision `to`, step by step (steps matched by id). */
    async diff(ref: string, from: number, to: number): Promise<RevisionDiff> {
      const [a, b] = await Promise.all([requireRevision(ref, from, 'from'), requireRevision(ref, to, 'to')]);
      const changes = diffWorkflows(a.workflow, b.workflow);
      return { from, to, changes, lines: diffLines(changes) };
    },
    /**
     * Makes the workflow what it was at `revision`: a new revision equal to that one (recording which
     * it restores), or nothing when the workflow is that already. Its runs pinned to other revisions keep them.
     */
    async rollback(ref: string, revision: number, options: WorkflowWriteOptions = {}): Promise<Workflow> {
      const { by } = parseInput(workflowWriteOptionsSchema, options, 'rollback options');
      const old = await requireRevision(ref, revision, 'revision');
      const parsed = parseWorkflow(ctx, old.workflow);
      return storage.transaction(async (tx) => (await writeWorkflow(ctx, tx, parsed, by ?? 'code', revision)).workflow);
    },
    /** What `apply` would do with these files, changing nothing (a dry run). */
    async plan(input: WorkflowFilesInput): Promise<WorkflowApply> {
      const { checked, prune } = checkFiles(input);
      const plan = await planOver(storage, checked, prune);
      return { plan, lines: planLines(plan), applied: false };
    },
    /**
     * Makes the stored workflows what the files say, in one transaction: added, changed (each a new
     * revision), and with `prune` removed. One bad file refuses the whole apply, naming the file and
     * the field; files that match what is stored change nothing.
     */
    async apply(input: WorkflowFilesInput): Promise<WorkflowApply> {
      const { checked, prune, by } = checkFiles(input);
      return storage.transaction(async (tx) => {
        const plan = await planOver(tx, checked, prune);
        if (isEmptyPlan(plan)) return { plan, lines: planLines(plan), applied: false };
        const touched = new Set([...plan.added, ...plan.changed].map((p) => p.file));
        for (const { file, parsed } of checked) if (touched.has(file)) await writeWorkflow(ctx, tx, parsed, by);
        for (const { identifier } of plan.removed) {
          const stored = await tx.workflows.find(env, identifier);
          if (stored) await tx.workflows.delete(env, stored._id);
        }
        return { plan, lines: planLines(plan), applied: true };
      });
    },
  };
}
