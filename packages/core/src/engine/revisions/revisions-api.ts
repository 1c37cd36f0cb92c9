import { notFound, TidingsError, type FieldIssue } from '../../errors.js';
import { currentActor } from '../audit/actor.js';
import { issuesText } from '../../listed-issues.js';
import { idSchema, workflowFilesInputSchema, type WorkflowFilesInput } from '../../schemas/index.js';
import type { StorageRepositories } from '../../storage.js';
import { parseInput } from '../../validation.js';
import type { EngineContext } from '../context.js';
import { parseWorkflow, writeWorkflow } from '../catalog/workflow-writes.js';
import { listLayouts, listPartials } from '../email/look-records.js';
import { listCatalogs } from '../translations/catalog-records.js';
import { isEmptyPlan, joinPlans, planLines, type WorkflowPlan } from '../../revisions/files-plan.js';
import { folderFiles, readFolder, type FolderFile, type FolderInput } from '../../revisions/folder-files.js';
import { historyApi } from './history-api.js';
import { fileKinds, type CheckedKind } from './file-kinds.js';
import { idOfAlias } from './revision-records.js';
import { WORKFLOW_HISTORY } from './revision-kinds.js';

export type { RevisionDiff } from './history-api.js';

/** What `workflows.plan` and `workflows.apply` answer: the plan, as lines too, and whether it was applied. */
export interface WorkflowApply {
  readonly plan: WorkflowPlan;
  readonly lines: readonly string[];
  /** False for a plan, and for an apply that found nothing to change. */
  readonly applied: boolean;
}

const refusal = (issues: readonly FieldIssue[]) => new TidingsError('validation_failed', `Invalid workflow files (nothing was applied): ${issuesText(issues)}`, { issues: [...issues] });

/** Revisions of stored workflows, and a folder of files (workflows, layouts, partials, catalogs): history, diff, rollback, export, plan, apply. */
export function revisionsApi(ctx: EngineContext) {
  const { storage, env } = ctx;
  const kinds = fileKinds(ctx);

  /** The `_id` a reference names: a workflow's, or (after its deletion) the one its revisions carry. */
  async function workflowIdOf(ref: string): Promise<string> {
    parseInput(idSchema, ref, 'workflow reference');
    const workflow = await storage.workflows.find(env, ref);
    const id = workflow?._id ?? (await idOfAlias(storage.records, env, WORKFLOW_HISTORY, ref));
    if (id === null) throw notFound('Workflow', ref);
    return id;
  }

  /** Every file checked, each issue named by file and field, before anything is read or written. */
  async function checkFiles(input: WorkflowFilesInput) {
    const { files, prune, by } = parseInput(workflowFilesInputSchema, input, 'workflow files');
    const texts: FolderFile[] = files.flatMap((f) => ('text' in f ? [f] : []));
    const { inputs, issues } = readFolder(texts);
    const given: FolderInput[] = files.flatMap((f) => ('text' in f ? [] : [{ kind: 'workflows' as const, file: f.file, input: f.workflow, place: (path: string) => `${f.file}:${path}` }]));
    const all = [...given, ...inputs];
    const checked: CheckedKind[] = [];
    for (const kind of kinds) checked.push(await kind.check(all.filter((i) => i.kind === kind.kind), issues));
    if (issues.length > 0) throw refusal(issues);
    // `true` prunes the workflows and each other kind the files include; a list, exactly its kinds.
    const pruned = new Set(prune === true ? ['workflows', ...all.map((i) => i.kind)] : prune === false ? [] : prune);
    return { checked, pruned, by: by ?? currentActor() };
  }

  /** The plan of checked files against what `repos` hold; files that cannot be over it refuse it all. */
  async function planOver(repos: StorageRepositories, checked: readonly CheckedKind[], pruned: ReadonlySet<string>) {
    const planned = [];
    for (const kind of checked) planned.push(await kind.plan(repos, pruned.has(kind.kind)));
    const issues = planned.flatMap((p) => p.issues);
    if (issues.length > 0) throw refusal(issues);
    return { plan: joinPlans(planned.map((p) => p.plan)), planned };
  }

  return {
    /**
     * Everything stored that a folder keeps, as its files (path and text): each workflow as
     * `<identifier>.json`, each layout as `layouts/<identifier>.json` with its content beside it
     * (`.html` or `.mjml`), partials as `partials/<identifier>.html`, catalogs as
     * `translations/<locale>.json` (a tenant's in `translations/<tenant>/`). What `apply` takes back,
     * in this environment or another. Workflows written in code are left out (their file is the code).
     */
    async exportFiles(): Promise<FolderFile[]> {
      const [workflows, layouts, partials, catalogs] = await Promise.all([storage.workflows.list(env), listLayouts(storage.records, env), listPartials(storage.records, env), listCatalogs(storage.records, env)]);
      return folderFiles({ workflows: workflows.filter((w) => w._creatorId !== 'code'), layouts, partials, catalogs });
    },
    ...historyApi(ctx, WORKFLOW_HISTORY, {
      idOf: workflowIdOf,
      async restore(old, by, restores) {
        const parsed = parseWorkflow(ctx, old);
        return storage.transaction(async (tx) => (await writeWorkflow(ctx, tx, parsed, by, restores)).workflow);
      },
    }),
    /** What `apply` would do with these files, changing nothing (a dry run). */
    async plan(input: WorkflowFilesInput): Promise<WorkflowApply> {
      const { checked, pruned } = await checkFiles(input);
      const { plan } = await planOver(storage, checked, pruned);
      return { plan, lines: planLines(plan), applied: false };
    },
    /**
     * Makes what is stored what the files say, in one transaction: each workflow, layout, partial and
     * catalog added or changed (each a new revision), and with `prune` the others removed. One bad
     * file refuses the whole apply, naming the file and the field; files that match what is stored
     * change nothing.
     */
    async apply(input: WorkflowFilesInput): Promise<WorkflowApply> {
      const { checked, pruned, by } = await checkFiles(input);
      return storage.transaction(async (tx) => {
        const { plan, planned } = await planOver(tx, checked, pruned);
        if (isEmptyPlan(plan)) return { plan, lines: planLines(plan), applied: false };
        for (const p of planned) await p.apply(tx, by);
        return { plan, lines: planLines(plan), applied: true };
      });
    },
  };
}

