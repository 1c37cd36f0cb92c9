import type { Database } from './tables.js';

/** A record table with a SQL table of its own: its columns are the record store's, less `tbl`. */
export interface OwnRecordTable {
  readonly name: 'tidings_record_subscribers' | 'tidings_record_notifications' | 'tidings_record_traces';
  /** Its secondary indexes (after `env`): only what core's finds on the table use. */
  readonly indexes: readonly (readonly ('i1' | 'sort' | 'key')[])[];
}

/**
 * The record tables written on every trigger get tables of their own, with only the indexes their
 * finds use: in the shared table each record paid for every index and for the table name in each
 * entry, a quarter of a bulk trigger's time. Every other table's records share `tidings_records`.
 */
export const OWN_RECORD_TABLES: Readonly<Record<string, OwnRecordTable>> = {
  // Read by key, and paged in key order (the primary key).
  subscribers: { name: 'tidings_record_subscribers', indexes: [] },
  // By transactionId (the key), by `_id` (i1), and newest first (sort).
  notifications: { name: 'tidings_record_notifications', indexes: [['i1'], ['sort', 'key']] },
  // Appended in key order, read and deleted by transactionId (i1).
  traces: { name: 'tidings_record_traces', indexes: [['i1']] },
};

/** Where a table's records are: a table of their own, or the shared one (with `tbl` naming theirs). */
export interface RecordPlace {
  readonly name: keyof Database & ('tidings_records' | OwnRecordTable['name']);
  readonly shared: boolean;
}

const SHARED: RecordPlace = { name: 'tidings_records', shared: true };

export const placeOf = (table: string): RecordPlace => {
  const own = OWN_RECORD_TABLES[table];
  return own ? { name: own.name, shared: false } : SHARED;
};
