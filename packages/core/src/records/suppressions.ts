import type { RecordStore } from './record-store.js';
import type { Suppression } from '../schemas/suppression.js';
import type { SuppressionRepository } from '../storage.js';
import { createHash } from 'node:crypto';
import { docsOf } from './docs.js';

export const SUPPRESSIONS = 'suppressions';
const TABLE = SUPPRESSIONS;

/**
 * What an erased subscriber's entry keeps of its address: `sha256:` and the hash of the address as
 * the list keys it (normalAddress), so the address is never sent to again, yet not kept.
 */
export const hashedAddress = (address: string) => `sha256:${createHash('sha256').update(address).digest('hex')}`;

/** Channels are names without a colon, so the key is unambiguous. */
const keyOf = (channel: Suppression['channel'], address: string) => `${channel}:${address}`;
/**
 * The list's order, newest first then by address, as one sort value: instants are fixed-length ISO
 * text, so comparing `at|address` compares `at`, then `address`.
 */
const sortOf = (entry: Pick<Suppression, 'at' | 'address'>) => `${entry.at}|${entry.address}`;

/** The suppression list: one record per (channel, address), indexed by channel (`i1`). */
export function suppressionRepository(records: RecordStore): SuppressionRepository {
  return {
    async add(env, entries) {
      if (entries.length === 0) return;
      await records.insertNew(env, TABLE, entries.map((entry) => ({ key: keyOf(entry.channel, entry.address), i1: entry.channel, sort: sortOf(entry), doc: entry })));
    },
    remove: async (env, channel, address) => (await records.delete(env, TABLE, [keyOf(channel, address), keyOf(channel, hashedAddress(address))])) > 0,
    /** An address matches its own entry, or the hashed entry an erasure left of it (returned under the address asked). */
    async find(env, channel, addresses) {
      if (addresses.length === 0) return [];
      const hashes = new Map(addresses.map((address) => [hashedAddress(address), address] as const));
      const found = docsOf<Suppression>(await records.get(env, TABLE, [...addresses, ...hashes.keys()].map((address) => keyOf(channel, address))));
      const plain = new Set(found.map((entry) => entry.address));
      return found.flatMap((entry) => {
        const of = hashes.get(entry.address);
        if (of === undefined) return [entry];
        return plain.has(of) ? [] : [{ ...entry, address: of }];
      });
    },
    async list(env, query) {
      return docsOf<Suppression>(
        await records.find(env, TABLE, {
          ...(query.channel !== undefined && { i1: query.channel }),
          order: 'desc',
          // An empty key: every entry of the cursor's (at, address) is on the page before.
          ...(query.after && { after: { sort: sortOf(query.after), key: '' } }),
          limit: query.limit,
        }),
      );
    },
  };
}
