/**
 * An object whose members are each made on first read, then kept: for the repositories an adapter
 * builds for every transaction, of which one transaction uses a few.
 */
export function lazyMembers<T extends object>(makers: { readonly [K in keyof T]: () => T[K] }): T {
  const out = {} as T;
  for (const key of Object.keys(makers) as (keyof T)[]) {
    Object.defineProperty(out, key, {
      enumerable: true,
      configurable: true,
      get() {
        const value = makers[key]();
        Object.defineProperty(out, key, { value, enumerable: true });
        return value;
      },
    });
  }
  return out;
}
