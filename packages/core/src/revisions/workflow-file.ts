import type { Step, StepVariant, Workflow } from '../schemas/index.js';

/** Members a file leaves out: the server makes them, per environment, and `upsert` ignores them. */
const SERVER_MADE = ['_id', 'identifier', '_organizationId', '_environmentId', '_creatorId', 'deleted', 'deletedAt', 'deletedBy', 'createdAt', 'updatedAt', 'revision'] as const;

/** A step's or variant's own id is kept (diffs match steps by it); its template id only when it is another. */
function fileStep<T extends Step | StepVariant>(step: T): T {
  const { _templateId, ...rest } = step;
  return (_templateId === undefined || _templateId === step._id ? rest : step) as T;
}

/**
 * A stored workflow as a file keeps it: what `upsert` (and `apply`) takes back to the same workflow,
 * in any environment. Server-made members are left out, as are a generated slug and the default
 * group; steps keep their ids. Pure.
 */
export function workflowFile(workflow: Workflow): Record<string, unknown> {
  const file: Record<string, unknown> = { ...workflow, steps: workflow.steps.map((s) => ({ ...fileStep(s), variants: s.variants.map(fileStep) })) };
  for (const member of SERVER_MADE) delete file[member];
  if (workflow.slug.endsWith(`_wf_${workflow._id}`)) delete file['slug'];
  if (workflow._notificationGroupId === 'general') delete file['_notificationGroupId'];
  return file;
}

/** File names for workflows (`<identifier>.json`, other characters as `_`), each distinct. Pure. */
export function workflowFileNames(identifiers: readonly string[]): string[] {
  const taken = new Set<string>();
  return identifiers.map((identifier) => {
    const base = identifier.replace(/[^\w.-]/g, '_');
    let name = `${base}.json`;
    for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${base}-${n}.json`;
    taken.add(name.toLowerCase());
    return name;
  });
}
