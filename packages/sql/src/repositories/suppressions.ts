import type { Suppression } from '@tidings/core';
import type { StorageRepositories } from '@tidings/core/internal';
import { chunk, decodeJson, encodeJson } from '../codec.js';
import { rowInserter } from '../row-inserter.js';
import type { RepoContext } from './context.js';

const insertEntries = rowInserter('tidings_suppressions', ['env', 'channel', 'address', 'at', 'doc'], (q) => q.onConflict((oc) => oc.columns(['env', 'channel', 'address']).doNothing()));

export function suppressionRepositories({ db, dialect }: RepoContext): Pick<StorageRepositories, 'suppressions'> {
  return {
    suppressions: {
      async add(env, entries) {
        await insertEntries(db, dialect, entries.map((e) => [env, e.channel, e.address, e.at, encodeJson(e)]));
      },
      async remove(env, channel, address) {
        const result = await db.deleteFrom('tidings_suppressions').where('env', '=', env).where('channel', '=', channel).where('address', '=', address).executeTakeFirst();
        return Number(result.numDeletedRows) > 0;
      },
      async find(env, channel, addresses) {
        const out: Suppression[] = [];
        for (const part of chunk([...new Set(addresses)], 1, dialect.maxParams - 2)) {
          const rows = await db.selectFrom('tidings_suppressions').select('doc').where('env', '=', env).where('channel', '=', channel).where('address', 'in', part).execute();
          for (const r of rows) out.push(decodeJson<Suppression>(r.doc));
        }
        return out;
      },
      async list(env, query) {
        let select = db.selectFrom('tidings_suppressions').select('doc').where('env', '=', env);
        if (query.channel) select = select.where('channel', '=', query.channel);
        const after = query.after;
        if (after) select = select.where((eb) => eb.or([eb('at', '<', after.at), eb.and([eb('at', '=', after.at), eb('address', '<', after.address)])]));
        const rows = await select.orderBy('at', 'desc').orderBy('address', 'desc').limit(query.limit).execute();
        return rows.map((r) => decodeJson<Suppression>(r.doc));
      },
    },
  };
}
