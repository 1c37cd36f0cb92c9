import { TidingsError } from '@tidings/core';
import { type StorageRepositories } from '@tidings/core/internal';
import { k, type Tables } from '../tables.js';

type Catalog = Pick<StorageRepositories, 'workflows' | 'tenants' | 'integrations'>;

const byCreation = <T extends { createdAt: string }>(a: T, b: T) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0);

function ofEnv<T extends { _environmentId: string }>(map: Map<string, T>, env: string): T[] {
  const out: T[] = [];
  for (const value of map.values()) if (value._environmentId === env) out.push(value);
  return out;
}

/** Workflows, tenants and integrations: the records an app configures. */
export function catalogRepositories(t: Tables): Catalog {
  return {
    workflows: {
      async upsert(env, workflow) {
        for (const other of t.workflows.values()) {
          if (other._environmentId === env && other._id !== workflow._id && other.identifier === workflow.identifier) {
            throw new TidingsError('conflict', `A workflow with identifier "${workflow.identifier}" already exists`);
          }
        }
        t.put(t.workflows, k(env, workflow._id), t.copy(workflow));
        return t.copy(workflow);
      },
      async find(env, ref) {
        const byId = t.workflows.get(k(env, ref));
        if (byId) return t.copy(byId);
        const all = ofEnv(t.workflows, env);
        const found = all.find((w) => w.identifier === ref) ?? all.find((w) => w.slug === ref);
        return found ? t.copy(found) : null;
      },
      async getMany(env, ids) {
        return ids.flatMap((id) => {
          const found = t.workflows.get(k(env, id));
          return found ? [t.copy(found)] : [];
        });
      },
      async list(env) {
        return ofEnv(t.workflows, env).sort(byCreation).map(t.copy);
      },
      async delete(env, id) {
        return t.del(t.workflows, k(env, id));
      },
    },
    tenants: {
      async upsert(env, tenant) {
        t.put(t.tenants, k(env, tenant.identifier), t.copy(tenant));
        return t.copy(tenant);
      },
      async get(env, identifier) {
        const found = t.tenants.get(k(env, identifier));
        return found ? t.copy(found) : null;
      },
    },
    integrations: {
      async upsert(env, integration) {
        for (const other of ofEnv(t.integrations, env)) {
          if (other._id === integration._id) continue;
          if (other.identifier === integration.identifier) {
            throw new TidingsError('conflict', `An integration with identifier "${integration.identifier}" already exists`);
          }
        }
        t.put(t.integrations, k(env, integration._id), t.copy(integration));
        return t.copy(integration);
      },
      async list(env, filter = {}) {
        return ofEnv(t.integrations, env)
          .filter((i) => (filter.active === undefined || i.active === filter.active) && (filter.channel === undefined || i.channel === filter.channel))
          .sort(byCreation)
          .map(t.copy);
      },
      async get(env, id) {
        const found = t.integrations.get(k(env, id));
        return found ? t.copy(found) : null;
      },
    },
  };
}
