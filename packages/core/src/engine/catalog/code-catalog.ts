import { TidingsError } from '../../errors.js';
import type { Workflow } from '../../schemas/index.js';
import type { Storage, StorageRepositories } from '../../storage.js';
import type { CodeStepDeclaration, CodeWorkflow } from '../../walk/code-workflow.js';
import { codeWorkflowView } from '../../walk/code-workflow-view.js';
import { REPOSITORY_NAMES } from '../../wrap-repositories.js';

/** An engine's code workflows, discovered once: their catalog views and declared steps. */
export interface CodeCatalog {
  readonly workflows: ReadonlyMap<string, CodeWorkflow>;
  /** Resolves once every workflow's steps are known (rejects naming the workflow whose discovery failed). */
  readonly ready: Promise<ReadonlyMap<string, Workflow>>;
  /** The declared steps of a discovered code workflow. */
  stepsOf(id: string): readonly CodeStepDeclaration[] | undefined;
}

export function codeCatalog(workflows: ReadonlyMap<string, CodeWorkflow>, env: string, organizationId: string, at: string): CodeCatalog {
  const steps = new Map<string, readonly CodeStepDeclaration[]>();
  const discover = async (code: CodeWorkflow) => {
    try {
      steps.set(code.id, await code.discover());
    } catch (error) {
      throw new TidingsError('validation_failed', `workflow "${code.id}": its steps could not be discovered: ${error instanceof Error ? error.message : String(error)}`, {
        issues: [{ path: `workflows.${code.id}`, message: 'discovery failed' }],
      });
    }
    return [code.id, codeWorkflowView(code, steps.get(code.id)!, env, organizationId, at)] as const;
  };
  const ready = Promise.all([...workflows.values()].map(discover)).then((views) => new Map(views));
  // Rejections surface on first use, not as an unhandled rejection at construction.
  ready.catch(() => undefined);
  return { workflows, ready, stepsOf: (id) => steps.get(id) };
}

const readOnly = (workflow: Workflow) =>
  new TidingsError('conflict', `workflow "${workflow.identifier}" is defined in code (createTidings({ workflows })): change it there`, {
    issues: [{ path: 'identifier', message: `"${workflow.identifier}" is a code workflow and cannot be changed or deleted here` }],
  });

/** The workflows repository with the code workflows of `env` beside the stored ones; writes to them are refused. */
function withCode(workflows: StorageRepositories['workflows'], env: string, ready: Promise<ReadonlyMap<string, Workflow>>): StorageRepositories['workflows'] {
  const codeOf = async (e: string, ref: string) => (e === env ? (await ready).get(ref) : undefined);
  return {
    async upsert(e, workflow) {
      const code = (await codeOf(e, workflow._id)) ?? (await codeOf(e, workflow.identifier));
      if (code) throw readOnly(code);
      return workflows.upsert(e, workflow);
    },
    async find(e, ref) {
      return (await codeOf(e, ref)) ?? workflows.find(e, ref);
    },
    async getMany(e, ids) {
      const views = e === env ? await ready : new Map<string, Workflow>();
      const rest = ids.filter((id) => !views.has(id));
      return [...ids.flatMap((id) => views.get(id) ?? []), ...(rest.length > 0 ? await workflows.getMany(e, rest) : [])];
    },
    async list(e) {
      const stored = await workflows.list(e);
      if (e !== env) return stored;
      const views = await ready;
      return [...views.values(), ...stored.filter((w) => !views.has(w.identifier))];
    },
    async delete(e, id) {
      const code = await codeOf(e, id);
      if (code) throw readOnly(code);
      return workflows.delete(e, id);
    },
  };
}

const pick = (repositories: StorageRepositories): StorageRepositories =>
  Object.fromEntries(REPOSITORY_NAMES.map((name) => [name, repositories[name]])) as unknown as StorageRepositories;

/**
 * The storage as the engine sees it when it runs code workflows: they are found, listed and fetched
 * like stored ones (in transactions too), and never written. A stored workflow with a code
 * workflow's identifier is hidden by it. Every other member is the storage's own.
 */
export function codeCatalogStorage<S extends Storage>(storage: S, env: string, catalog: CodeCatalog): S {
  if (catalog.workflows.size === 0) return storage;
  const view = Object.create(storage) as S & { workflows: StorageRepositories['workflows'] };
  view.workflows = withCode(storage.workflows, env, catalog.ready);
  view.transaction = (fn) => storage.transaction((tx) => fn({ ...pick(tx), workflows: withCode(tx.workflows, env, catalog.ready) }));
  return view;
}
