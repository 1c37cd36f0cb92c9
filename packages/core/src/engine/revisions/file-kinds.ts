import { isTidingsError, type FieldIssue } from '../../errors.js';
import { docsOf, firstDoc } from '../../records/docs.js';
import { planKind, type PlannedFile, type WorkflowPlan } from '../../revisions/files-plan.js';
import type { FolderInput } from '../../revisions/folder-files.js';
import { catalogName, type KindRules, type RevisionedKind } from '../../revisions/kinds.js';
import type { Layout, Workflow } from '../../schemas/index.js';
import type { StorageRepositories } from '../../storage.js';
import { canonicalLocale } from '../../translations/locale-chain.js';
import type { EngineContext } from '../context.js';
import { buildWorkflow, matchOf, parseWorkflow, saveWorkflow, type ParsedWorkflow } from '../catalog/workflow-writes.js';
import { LAYOUTS, PARTIALS_TABLE } from '../email/look-records.js';
import { buildLayout, buildPartial, checkLayout, checkPartial, saveLayout, savePartial, type CheckedLayout } from '../email/look-writes.js';
import { TRANSLATIONS, catalogKey } from '../translations/catalog-records.js';
import { buildCatalog, checkCatalog, saveCatalog } from '../translations/catalog-writes.js';
import type { Revisable } from './revision-records.js';
import { CATALOG_HISTORY, LAYOUT_HISTORY, PARTIAL_HISTORY, WORKFLOW_HISTORY } from './revision-kinds.js';

/** A file of one kind that passed its checks. */
interface CheckedFile<C> {
  readonly file: string;
  readonly checked: C;
  readonly place: (path: string) => string;
}

/** How `plan` and `apply` handle one kind of file; each kind's rules live in its own writes module. */
interface FileKindSpec<C, T extends Revisable> {
  /** Its rules (a kind's `*_HISTORY`). */
  readonly history: KindRules<T>;
  /** Where a file's name is, for the issue of two files naming one. */
  readonly namePath: string;
  /** Checks one input as its kind's `upsert` does; throws `validation_failed` naming each field. */
  check(input: unknown): C | Promise<C>;
  nameOf(checked: C): string;
  /** What is stored of the kind that files may change (workflows written in code left out). */
  stored(repos: StorageRepositories): Promise<T[]>;
  /** What a checked file stores over the stored ones. */
  build(checked: C, stored: readonly T[]): T | Promise<T>;
  /** Issues of files that are fine alone but not together, or not over what is stored. */
  refuse?(repos: StorageRepositories, files: readonly CheckedFile<C>[]): Promise<FieldIssue[]> | FieldIssue[];
  /** The targets as a whole, adjusted (a layout that takes the default from the others). */
  adjust?(targets: PlannedFile<T>[], files: readonly CheckedFile<C>[], stored: readonly T[], prune: boolean): PlannedFile<T>[];
  /** Saves a target over what the transaction holds now, as a new revision. */
  save(tx: StorageRepositories, value: T, by: string): Promise<unknown>;
  remove(tx: StorageRepositories, value: T): Promise<unknown>;
}

/** One kind's checked files, to plan against some repositories (the storage, or a transaction's). */
export interface CheckedKind {
  readonly kind: RevisionedKind;
  /** The plan, and how to apply it in the transaction it was planned in; throws `validation_failed` for files that cannot be. */
  plan(repos: StorageRepositories, prune: boolean): Promise<{ plan: WorkflowPlan; issues: FieldIssue[]; apply: (tx: StorageRepositories, by: string) => Promise<void> }>;
}

/** A kind's handling with its types closed over, so the kinds go in one list. */
export interface FileKind {
  readonly kind: RevisionedKind;
  /** Checks the inputs of this kind, adding the issues of the bad ones (named by file and field) to `issues`. */
  check(inputs: readonly FolderInput[], issues: FieldIssue[]): Promise<CheckedKind>;
}

function fileKind<C, T extends Revisable>(spec: FileKindSpec<C, T>): FileKind {
  const { history } = spec;
  const kind = history.kind;
  return {
    kind,
    async check(inputs, issues) {
      const files: CheckedFile<C>[] = [];
      const seen = new Map<string, string>();
      for (const { file, input, place } of inputs) {
        try {
          const checked = await spec.check(input);
          const name = spec.nameOf(checked);
          const other = seen.get(name);
          if (other !== undefined) issues.push({ path: place(spec.namePath), message: `"${name}" is also the ${history.noun[0]} of ${other}` });
          seen.set(name, file);
          files.push({ file, checked, place });
        } catch (error) {
          if (!isTidingsError(error, 'validation_failed')) throw error;
          issues.push(...(error.issues.length > 0 ? error.issues : [{ path: '', message: error.message }]).map((i) => ({ path: place(i.path), message: i.message })));
        }
      }
      return {
        kind,
        async plan(repos, prune) {
          const stored = await spec.stored(repos);
          const issues = (await spec.refuse?.(repos, files)) ?? [];
          const built = await Promise.all(files.map(async (f) => ({ file: f.file, value: await spec.build(f.checked, stored) })));
          const targets = spec.adjust ? spec.adjust(built, files, stored, prune) : built;
          const plan = planKind(history, stored, targets, prune);
          const byName = new Map(stored.map((value) => [history.nameOf(value), value] as const));
          const touched = new Set([...plan.added, ...plan.changed].map((p) => p.identifier));
          return {
            plan,
            issues,
            async apply(tx, by) {
              for (const { value } of targets) if (touched.has(history.nameOf(value))) await spec.save(tx, value, by);
              for (const { identifier } of plan.removed) await spec.remove(tx, byName.get(identifier)!);
            },
          };
        },
      };
    },
  };
}

/**
 * A kind stored as keyed records in one table (layouts, partials, catalogs): what is stored is the
 * table's records; a file builds over the stored record of its name, saves over the one the
 * transaction holds, and a removal deletes its key.
 */
function recordKind<C, T extends Revisable>(ctx: EngineContext, spec: {
  readonly history: KindRules<T>;
  readonly table: string;
  readonly keyOf: (value: T) => string;
  readonly namePath: string;
  readonly check: (input: unknown) => C | Promise<C>;
  readonly nameOf: (checked: C) => string;
  readonly build: (checked: C, stored: T | null, now: string) => T;
  readonly save: (ctx: EngineContext, tx: StorageRepositories, value: T, stored: T | null, by: string) => Promise<unknown>;
} & Pick<FileKindSpec<C, T>, 'refuse' | 'adjust'>): FileKind {
  const { env } = ctx;
  const { history, table, keyOf, nameOf } = spec;
  return fileKind<C, T>({
    ...spec,
    stored: async (repos) => docsOf<T>(await repos.records.find(env, table, {})),
    build: (checked, stored) => spec.build(checked, stored.find((value) => history.nameOf(value) === nameOf(checked)) ?? null, ctx.now()),
    save: async (tx, value, by) => spec.save(ctx, tx, value, firstDoc<T>(await tx.records.get(env, table, [keyOf(value)])), by),
    remove: (tx, value) => tx.records.delete(env, table, [keyOf(value)]),
  });
}

/** A catalog input's name, as a stored catalog's (its locale in canonical form). */
const catalogInputName = (input: ReturnType<typeof checkCatalog>) => catalogName({ tenant: input.tenant ?? null, locale: canonicalLocale(input.locale) });

/** Each kind's handling for `plan` and `apply`, in the order a plan lists them. */
export function fileKinds(ctx: EngineContext): readonly FileKind[] {
  const { env } = ctx;
  return [
    fileKind<ParsedWorkflow, Workflow>({
      history: WORKFLOW_HISTORY,
      namePath: 'triggers[0].identifier',
      check: (input) => parseWorkflow(ctx, input),
      nameOf: (parsed) => parsed.triggers[0]!.identifier,
      stored: async (repos) => (await repos.workflows.list(env)).filter((w) => w._creatorId !== 'code'),
      async build(parsed, stored) {
        const find = (ref: string) => stored.find((w) => w._id === ref) ?? stored.find((w) => w.identifier === ref) ?? stored.find((w) => w.slug === ref) ?? null;
        return buildWorkflow(ctx, parsed, await matchOf(find, parsed));
      },
      async refuse(repos, files) {
        const code = new Set((await repos.workflows.list(env)).filter((w) => w._creatorId === 'code').map((w) => w.identifier));
        return files.flatMap(({ checked, place }) => {
          const identifier = checked.triggers[0]!.identifier;
          return code.has(identifier) ? [{ path: place('triggers[0].identifier'), message: `"${identifier}" is a workflow written in code: change it there` }] : [];
        });
      },
      save: async (tx, value, by) => saveWorkflow(ctx, tx, value, await tx.workflows.find(env, value._id), by),
      remove: (tx, value) => tx.workflows.delete(env, value._id),
    }),
    recordKind<CheckedLayout, Layout>(ctx, {
      history: LAYOUT_HISTORY,
      table: LAYOUTS,
      keyOf: (l) => l.identifier,
      namePath: 'identifier',
      check: checkLayout,
      nameOf: (checked) => checked.input.identifier,
      build: buildLayout,
      save: saveLayout,
      refuse(_repos, files) {
        const claims = files.filter((f) => f.checked.input.isDefault === true);
        return claims.slice(1).map((f) => ({ path: f.place('isDefault'), message: `only one layout can be the default, and ${claims[0]!.file} is` }));
      },
      // A layout a file makes the default takes the flag from the others, as `upsert` does: a change of those too.
      adjust(targets, files, stored, prune) {
        const claim = files.find((f) => f.checked.input.isDefault === true);
        if (!claim) return targets;
        const winner = claim.checked.input.identifier;
        const demoted = (layout: Layout): Layout => ({ ...layout, isDefault: false, updatedAt: ctx.now() });
        const adjusted = targets.map((t) => (t.value.isDefault && t.value.identifier !== winner ? { ...t, value: demoted(t.value) } : t));
        const named = new Set(targets.map((t) => t.value.identifier));
        const others = prune ? [] : stored.filter((l) => l.isDefault && !named.has(l.identifier)).map((l) => ({ file: claim.file, value: demoted(l) }));
        return [...adjusted, ...others];
      },
    }),
    recordKind(ctx, { history: PARTIAL_HISTORY, table: PARTIALS_TABLE, keyOf: (p) => p.identifier, namePath: 'identifier', check: checkPartial, nameOf: (p) => p.identifier, build: buildPartial, save: savePartial }),
    recordKind(ctx, { history: CATALOG_HISTORY, table: TRANSLATIONS, keyOf: catalogKey, namePath: 'locale', check: checkCatalog, nameOf: catalogInputName, build: buildCatalog, save: saveCatalog }),
  ];
}
