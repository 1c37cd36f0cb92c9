const SEGMENT = /[^.[\]]+|\[(\d+)\]/g;

/** Splits `a.b[0].c` into `['a', 'b', 0, 'c']`. */
export function splitPath(path: string): (string | number)[] {
  const parts: (string | number)[] = [];
  for (const match of path.matchAll(SEGMENT)) parts.push(match[1] !== undefined ? Number(match[1]) : match[0]);
  return parts;
}

/** The value at a dot path with `[n]` indices, or undefined when any step is missing. Never throws. */
export function readPath(root: unknown, path: string): unknown {
  let current: unknown = root;
  for (const part of splitPath(path)) {
    if (current === null || typeof current !== 'object') return undefined;
    if (!Object.prototype.hasOwnProperty.call(current, part)) return undefined;
    current = (current as Record<string | number, unknown>)[part];
  }
  return current;
}
