import { TidingsError } from '../errors.js';
import type { RecordStore } from './record-store.js';

/**
 * Throws `conflict` when another record of the table (indexed by identifier in `i1`) has the
 * identifier. A check, then the caller's put: the engine writes inside a transaction, which makes the
 * two one step (serializable on Postgres, one writer at a time on SQLite and in memory).
 */
export async function refuseTakenIdentifier(records: RecordStore, env: string, table: string, record: { _id: string; identifier: string }, what: string): Promise<void> {
  const holders = await records.find(env, table, { i1: record.identifier, limit: 2 });
  if (holders.some((holder) => holder.key !== record._id)) throw new TidingsError('conflict', `${what} with identifier "${record.identifier}" already exists`);
}
