import { sameJson } from '../../messages/message-filter.js';

/** Members every stored value changes on each write: not a change of its own. */
const BOOKKEEPING = new Set(['updatedAt', 'revision', 'createdAt', '_id', '_environmentId', '_organizationId']);

/** Members whose values are secret: the audit names which of their members changed, never a value. */
const SECRET = new Set(['credentials', 'secret']);

const membersOf = (value: unknown): Record<string, unknown> => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {});

/**
 * The top-level members that differ between `before` and `after` (all of `after`'s when there was no
 * `before`), sorted; a secret member is listed as `credentials.<name>` for each of its own members
 * that differ, so nothing of a credential but its name reaches the log.
 */
export function changedFields(before: unknown, after: unknown): string[] {
  const a = membersOf(before);
  const b = membersOf(after);
  const changed = new Set<string>();
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (BOOKKEEPING.has(key) || sameJson(a[key], b[key])) continue;
    if (!SECRET.has(key)) {
      changed.add(key);
      continue;
    }
    const inner = [membersOf(a[key]), membersOf(b[key])] as const;
    const names = [...new Set([...Object.keys(inner[0]), ...Object.keys(inner[1])])].filter((name) => !sameJson(inner[0][name], inner[1][name]));
    if (names.length === 0) changed.add(key);
    for (const name of names) changed.add(`${key}.${name}`);
  }
  return [...changed].sort();
}
