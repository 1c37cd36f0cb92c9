import { TidingsError, type Integration, type Tenant, type Workflow } from '@tidings/core';
import { type StorageRepositories } from '@tidings/core/internal';
import { bit, decodeJson, encodeJson } from '../codec.js';
import type { Db } from '../dialect.js';
import { conflictOnDuplicate, type RepoContext } from './context.js';

type Catalog = Pick<StorageRepositories, 'workflows' | 'tenants' | 'integrations'>;

/** Throws `conflict` when another record of the table already has the identifier in the environment. */
async function refuseTakenIdentifier(db: Db, table: 'tidings_workflows' | 'tidings_integrations', env: string, record: { _id: string; identifier: string }, what: string): Promise<void> {
  const clash = await db.selectFrom(table).select('id').where('env', '=', env).where('identifier', '=', record.identifier).where('id', '!=', record._id).executeTakeFirst();
  if (clash) throw new TidingsError('conflict', `${what} with identifier "${record.identifier}" already exists`);
}

export function catalogRepositories({ db, atomic }: RepoContext): Catalog {
  const docs = <T>(rows: { doc: unknown }[]) => rows.map((r) => decodeJson<T>(r.doc));
  return {
    workflows: {
      async upsert(env, workflow) {
        await refuseTakenIdentifier(db, 'tidings_workflows', env, workflow, 'A workflow');
        const row = { env, id: workflow._id, identifier: workflow.identifier, slug: workflow.slug, created_at: workflow.createdAt, doc: encodeJson(workflow) };
        await conflictOnDuplicate(`A workflow with identifier "${workflow.identifier}"`, () =>
          db
            .insertInto('tidings_workflows')
            .values(row)
            .onConflict((oc) => oc.columns(['env', 'id']).doUpdateSet({ identifier: row.identifier, slug: row.slug, created_at: row.created_at, doc: row.doc }))
            .execute(),
        );
        return workflow;
      },
      async find(env, ref) {
        const rows = await db
          .selectFrom('tidings_workflows')
          .select(['id', 'identifier', 'doc'])
          .where('env', '=', env)
          .where((eb) => eb.or([eb('id', '=', ref), eb('identifier', '=', ref), eb('slug', '=', ref)]))
          .execute();
        const best = rows.find((r) => r.id === ref) ?? rows.find((r) => r.identifier === ref) ?? rows[0];
        return best ? decodeJson<Workflow>(best.doc) : null;
      },
      async getMany(env, ids) {
        if (ids.length === 0) return [];
        return docs<Workflow>(await db.selectFrom('tidings_workflows').select('doc').where('env', '=', env).where('id', 'in', [...ids]).execute());
      },
      async list(env) {
        return docs<Workflow>(await db.selectFrom('tidings_workflows').select('doc').where('env', '=', env).orderBy('created_at').orderBy('id').execute());
      },
      async delete(env, id) {
        const result = await db.deleteFrom('tidings_workflows').where('env', '=', env).where('id', '=', id).executeTakeFirst();
        return Number(result.numDeletedRows) > 0;
      },
    },
    tenants: {
      async upsert(env, tenant) {
        const doc = encodeJson(tenant);
        await db
          .insertInto('tidings_tenants')
          .values({ env, identifier: tenant.identifier, doc })
          .onConflict((oc) => oc.columns(['env', 'identifier']).doUpdateSet({ doc }))
          .execute();
        return tenant;
      },
      async get(env, identifier) {
        const row = await db.selectFrom('tidings_tenants').select('doc').where('env', '=', env).where('identifier', '=', identifier).executeTakeFirst();
        return row ? decodeJson<Tenant>(row.doc) : null;
      },
    },
    integrations: {
      upsert: (env, integration) =>
        atomic(async (tx) => {
          await refuseTakenIdentifier(tx, 'tidings_integrations', env, integration, 'An integration');
          const row = {
            env,
            id: integration._id,
            identifier: integration.identifier,
            channel: integration.channel,
            active: bit(integration.active),
            is_primary: bit(integration.primary),
            created_at: integration.createdAt,
            doc: encodeJson(integration),
          };
          const { env: _env, id: _id, ...changes } = row;
          await conflictOnDuplicate(`An integration with identifier "${integration.identifier}"`, () =>
            tx.insertInto('tidings_integrations').values(row).onConflict((oc) => oc.columns(['env', 'id']).doUpdateSet(changes)).execute(),
          );
          return integration;
        }),
      async list(env, filter = {}) {
        let query = db.selectFrom('tidings_integrations').select('doc').where('env', '=', env);
        if (filter.active !== undefined) query = query.where('active', '=', bit(filter.active));
        if (filter.channel !== undefined) query = query.where('channel', '=', filter.channel);
        return docs<Integration>(await query.orderBy('created_at').orderBy('id').execute());
      },
      async get(env, id) {
        const row = await db.selectFrom('tidings_integrations').select('doc').where('env', '=', env).where('id', '=', id).executeTakeFirst();
        return row ? decodeJson<Integration>(row.doc) : null;
      },
    },
  };
}
