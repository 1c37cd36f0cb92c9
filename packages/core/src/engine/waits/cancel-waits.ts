import type { RecordMatch, StorageRepositories } from '../../storage.js';
import { TOKENS, tokenInput, WAITS, type WaitRecord, type WaitToken } from './wait-records.js';

/**
 * Deletes the waits of a trigger's runs (`tidings.cancel`), so no signal or token resumes a cancelled
 * run; their tokens read `cancelled`. Its caller deletes the trigger's jobs, the timeouts among them.
 */
export const cancelWaitsOf = async (tx: StorageRepositories, env: string, transactionId: string): Promise<number> =>
  (await deleteWaits(tx, env, { gt: `${transactionId}\u0001`, lt: `${transactionId}\u0002` })).length;

/** Deletes the waits of the runs `runs` matches (`runKey`s), their tokens marked `cancelled`; returns them. */
export async function deleteWaits(tx: StorageRepositories, env: string, runs: RecordMatch): Promise<WaitRecord[]> {
  const deleted = await tx.records.deleteWhere(env, WAITS, { i3: runs });
  const tokens = deleted.flatMap((r) => ((r.doc as WaitRecord).tokenId !== undefined ? [(r.doc as WaitRecord).tokenId!] : []));
  if (tokens.length > 0) {
    const stored = await tx.records.get(env, TOKENS, tokens);
    await tx.records.put(env, TOKENS, stored.map((r) => tokenInput({ ...(r.doc as WaitToken), status: 'cancelled' })));
  }
  return deleted.map((r) => r.doc as WaitRecord);
}
