import { randomBytes } from 'node:crypto';
import type { RecordStore } from '../../records/record-store.js';

const TABLE = 'settings';
const KEY = 'link-secrets';

/** The environment's link secrets: links are signed with `current`; `previous` still verifies while kept. */
export interface LinkSecrets {
  readonly current: string;
  readonly previous?: string;
  readonly rotatedAt: string;
}

const fresh = () => randomBytes(32).toString('base64url');

/**
 * The environment's link secrets, made on first use: every process of the environment signs with the
 * same one (of racing first uses, one insert wins and all read it back).
 */
export async function linkSecrets(records: RecordStore, env: string, now: string): Promise<LinkSecrets> {
  const stored = await readLinkSecrets(records, env);
  if (stored) return stored;
  await records.insertNew(env, TABLE, [{ key: KEY, doc: { current: fresh(), rotatedAt: now } satisfies LinkSecrets }]);
  return (await records.get(env, TABLE, [KEY]))[0]!.doc as LinkSecrets;
}

/** The environment's link secrets when made (reads only: a job's batch writes nothing outside its commit). */
export async function readLinkSecrets(records: RecordStore, env: string): Promise<LinkSecrets | null> {
  const [stored] = await records.get(env, TABLE, [KEY]);
  return stored ? (stored.doc as LinkSecrets) : null;
}

/** A new current secret; the old one keeps verifying only when `keepPrevious`. */
export async function rotateLinkSecret(records: RecordStore, env: string, now: string, keepPrevious: boolean): Promise<void> {
  const before = await linkSecrets(records, env, now);
  const next: LinkSecrets = { current: fresh(), rotatedAt: now, ...(keepPrevious && { previous: before.current }) };
  await records.put(env, TABLE, [{ key: KEY, doc: next }]);
}

export const verifyingSecrets = (secrets: LinkSecrets): string[] => (secrets.previous ? [secrets.current, secrets.previous] : [secrets.current]);
