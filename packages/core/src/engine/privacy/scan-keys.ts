import type { RecordStore, StoredRecord } from '../../records/record-store.js';

const PAGE = 500;

/** Whether a key made of a JSON array (after an optional `name:` prefix) holds `id` as one of its items. */
export function keyNames(key: string, id: string): boolean {
  const json = key.startsWith('[') ? key : key.slice(key.indexOf(':') + 1);
  if (!json.startsWith('[')) return false;
  try {
    const items: unknown = JSON.parse(json);
    return Array.isArray(items) && items.includes(id);
  } catch {
    return false;
  }
}

/**
 * The records of a table that `matches` picks, read a page at a time in (sort, key) order: a bounded
 * scan, for tables that have no index by subscriber (their keys name one).
 */
export async function scanRecords(records: RecordStore, env: string, table: string, matches: (record: StoredRecord) => boolean): Promise<StoredRecord[]> {
  const found: StoredRecord[] = [];
  for (let after: { sort: string; key: string } | undefined; ; ) {
    const page = await records.find(env, table, { limit: PAGE, ...(after && { after }) });
    found.push(...page.filter(matches));
    if (page.length < PAGE) return found;
    const last = page[page.length - 1]!;
    after = { sort: last.sort, key: last.key };
  }
}
