/**
 * The values `found` holds for `keys`, in the order of `keys`, missing ones left out. A loop: on a
 * batch's path `keys.flatMap((k) => found.get(k) ?? [])` took several times as long.
 */
export function foundInOrder<K, V>(keys: Iterable<K>, found: ReadonlyMap<K, V>): V[] {
  const out: V[] = [];
  for (const key of keys) {
    const value = found.get(key);
    if (value !== undefined) out.push(value);
  }
  return out;
}
