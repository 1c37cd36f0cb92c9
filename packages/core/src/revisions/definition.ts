/**
 * Members that say when and where a record was saved, or what the engine made of it, not what it is:
 * a change of them alone is no revision, and no diff shows them.
 */
export const WORKFLOW_BOOKKEEPING: ReadonlySet<string> = new Set(['createdAt', 'updatedAt', 'revision', '_organizationId', '_environmentId']);
/** A layout's `html` is made from its content when it is saved. */
export const LAYOUT_BOOKKEEPING: ReadonlySet<string> = new Set(['createdAt', 'updatedAt', 'revision', 'html']);
/** Partials and translation catalogs. */
export const RECORD_BOOKKEEPING: ReadonlySet<string> = new Set(['updatedAt', 'revision']);

/** The value without its bookkeeping members (and undefined ones): what a revision compares and a diff reads. */
export function definitionOf(value: object, bookkeeping: ReadonlySet<string>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([key, member]) => !bookkeeping.has(key) && member !== undefined));
}

/** JSON with object members in byte order and undefined members left out: equal values give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const members = Object.keys(value)
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
