import type { StorageRepositories, Suppression } from '@tidings/core';
import { decodeJson, encodeJson } from '../codec.js';
import type { RepoContext } from './context.js';

export function suppressionRepositories({ db }: RepoContext): Pick<StorageRepositories, 'suppressions'> {
  return {
    suppressions: {
      async add(env, entries) {
        if (entries.length === 0) return;
        await db
          .insertInto('tidings_suppressions')
          .values(entries.map((e) => ({ env, channel: e.channel, address: e.address, at: e.at, doc: encodeJson(e) })))
          .onConflict((oc) => oc.columns(['env', 'channel', 'address']).doNothing())
          .execute();
      },
      async remove(env, channel, address) {
        const result = await db.deleteFrom('tidings_suppressions').where('env', '=', env).where('channel', '=', channel).where('address', '=', address).executeTakeFirst();
        return Number(result.numDeletedRows) > 0;
      },
      async find(env, channel, addresses) {
        if (addresses.length === 0) return [];
        const rows = await db.selectFrom('tidings_suppressions').select('doc').where('env', '=', env).where('channel', '=', channel).where('address', 'in', addresses).execute();
        return rows.map((r) => decodeJson<Suppression>(r.doc));
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
