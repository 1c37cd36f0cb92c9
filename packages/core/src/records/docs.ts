import type { StoredRecord } from './record-store.js';

/**
 * The documents of records as the type their repository stored them as. Records are written only by
 * that repository, from values its callers validated (schemas in `schemas/`), so they are read back
 * without parsing again, as every backend did before the record store.
 */
export const docsOf = <T>(records: readonly StoredRecord[]): T[] => records.map((record) => record.doc as T);

/** The first record's document, or null. */
export const firstDoc = <T>(records: readonly StoredRecord[]): T | null => (records[0] ? (records[0].doc as T) : null);
