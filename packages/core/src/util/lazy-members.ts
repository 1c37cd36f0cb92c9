/** Where an object of lazy members keeps its makers and what they made (not enumerable: a spread copies the members only). */
const STATE = Symbol('lazy members');

interface LazyState {
  readonly makers: Readonly<Record<PropertyKey, () => unknown>>;
  readonly made: Map<PropertyKey, unknown>;
}

/**
 * One getter per member name, shared by every object, so all the objects keep one fast hidden class.
 * Getters made per object put each object in dictionary mode, and young collections then kept the
 * last transaction's callback alive, with the batch of jobs around it, until a full collection
 * (measured: docs/performance.md, "What young collections kept").
 */
const getters = new Map<PropertyKey, () => unknown>();

function getterOf(key: PropertyKey): () => unknown {
  let getter = getters.get(key);
  if (!getter) {
    getter = function (this: { [STATE]: LazyState }) {
      const { makers, made } = this[STATE];
      if (made.has(key)) return made.get(key);
      const value = makers[key]!();
      made.set(key, value);
      return value;
    };
    getters.set(key, getter);
  }
  return getter;
}

/**
 * An object whose members are each made on first read, then kept: for the repositories an adapter
 * builds for every transaction, of which one transaction uses a few. The members are the object's
 * own and enumerable, so a spread of it reads (and makes) them all.
 */
export function lazyMembers<T extends object>(makers: { readonly [K in keyof T]: () => T[K] }): T {
  const out = {} as T;
  const state: LazyState = { makers: makers as LazyState['makers'], made: new Map() };
  Object.defineProperty(out, STATE, { value: state });
  for (const key of Object.keys(makers)) Object.defineProperty(out, key, { enumerable: true, configurable: true, get: getterOf(key) });
  return out;
}
