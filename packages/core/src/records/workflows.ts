import type { RecordStore } from './record-store.js';
import type { Workflow } from '../schemas/index.js';
import type { WorkflowRepository } from '../storage.js';
import { docsOf, firstDoc } from './docs.js';
import { refuseTakenIdentifier } from './unique-identifier.js';

const TABLE = 'workflows';

/** Workflows by `_id`, indexed by identifier (`i1`) and slug (`i2`), ordered by `createdAt`. */
export function workflowRepository(records: RecordStore): WorkflowRepository {
  return {
    async upsert(env, workflow) {
      await refuseTakenIdentifier(records, env, TABLE, workflow, 'A workflow');
      await records.put(env, TABLE, [{ key: workflow._id, i1: workflow.identifier, i2: workflow.slug, sort: workflow.createdAt, doc: workflow }]);
      return workflow;
    },
    async find(env, ref) {
      // The three lookups at once (one round trip on a pool); the first that finds one wins.
      const [byId, byIdentifier, bySlug] = await Promise.all([records.get(env, TABLE, [ref]), records.find(env, TABLE, { i1: ref, limit: 1 }), records.find(env, TABLE, { i2: ref, limit: 1 })]);
      return firstDoc<Workflow>(byId) ?? firstDoc<Workflow>(byIdentifier) ?? firstDoc<Workflow>(bySlug);
    },
    getMany: async (env, ids) => (ids.length === 0 ? [] : docsOf<Workflow>(await records.get(env, TABLE, ids))),
    list: async (env) => docsOf<Workflow>(await records.find(env, TABLE, {})),
    delete: async (env, id) => (await records.delete(env, TABLE, [id])) > 0,
  };
}
