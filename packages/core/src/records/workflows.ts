import type { RecordStore } from './record-store.js';
import type { Workflow } from '../schemas/index.js';
import type { WorkflowRepository } from '../storage.js';
import { docsOf, firstDoc } from './docs.js';
import { refuseTakenIdentifier } from './unique-identifier.js';

const TABLE = 'workflows';
/** What `newId` makes: 24 hex digits. */
const GENERATED_ID = /^[0-9a-f]{24}$/;

/** Workflows by `_id`, indexed by identifier (`i1`) and slug (`i2`), ordered by `createdAt`. */
export function workflowRepository(records: RecordStore): WorkflowRepository {
  return {
    async upsert(env, workflow) {
      await refuseTakenIdentifier(records, env, TABLE, workflow, 'A workflow');
      await records.put(env, TABLE, [{ key: workflow._id, i1: workflow.identifier, i2: workflow.slug, sort: workflow.createdAt, doc: workflow }]);
      return workflow;
    },
    async find(env, ref) {
      // A ref is tried as what it most likely is first, so a trigger (which names an identifier)
      // costs one statement, not three: an _id the engine made looks like one (24 hex digits), and
      // is tried first; any other ref is an identifier, else a slug, else an _id given by hand.
      const byId = async () => firstDoc<Workflow>(await records.get(env, TABLE, [ref]));
      const byIdentifier = async () => firstDoc<Workflow>(await records.find(env, TABLE, { i1: ref, limit: 1 }));
      const bySlug = async () => firstDoc<Workflow>(await records.find(env, TABLE, { i2: ref, limit: 1 }));
      if (GENERATED_ID.test(ref)) return (await byId()) ?? (await byIdentifier()) ?? (await bySlug());
      return (await byIdentifier()) ?? (await bySlug()) ?? (await byId());
    },
    getMany: async (env, ids) => (ids.length === 0 ? [] : ((await records.getDocs(env, TABLE, ids)) as Workflow[])),
    list: async (env) => docsOf<Workflow>(await records.find(env, TABLE, {})),
    delete: async (env, id) => (await records.delete(env, TABLE, [id])) > 0,
  };
}
