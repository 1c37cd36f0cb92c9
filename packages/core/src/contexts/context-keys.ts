import type { ContextPayload, ResolvedContext } from '../schemas/context.js';

/** A context named by a trigger or a session: its type and id, and its data when given. */
export interface NamedContext {
  readonly type: string;
  readonly id: string;
  readonly data?: Record<string, unknown>;
}

/** The contexts of a payload, each with its type, in the payload's order. */
export function namedContexts(payload: ContextPayload | null | undefined): NamedContext[] {
  return Object.entries(payload ?? {}).map(([type, value]) =>
    typeof value === 'string' ? { type, id: value } : { type, id: value.id, ...(value.data !== undefined && { data: value.data }) },
  );
}

/** The keys of contexts, Novu's `type:id`, sorted: what a message stores as its `contextKeys`. */
export function contextKeys(contexts: ResolvedContext | ContextPayload | null | undefined): string[] {
  return namedContexts(contexts as ContextPayload).map(({ type, id }) => `${type}:${id}`).sort();
}

/**
 * The one text an Inbox compares to scope by context: the sorted `type:id` keys joined by commas
 * (Novu's client's spelling), empty for none. Keys without a `:` are left out: messages stored before
 * contexts were scoped kept the types alone, and belong to no context.
 */
export function contextKeyText(keys: readonly string[] | undefined): string {
  return (keys ?? []).filter((key) => key.includes(':')).sort().join(',');
}

/**
 * A notification's stored context as a run sees it. Notifications stored before contexts held data
 * kept each context's id alone.
 */
export function resolvedContext(stored: Record<string, string | { id: string; data: Record<string, unknown> }> | undefined): ResolvedContext {
  return Object.fromEntries(Object.entries(stored ?? {}).map(([type, value]) => [type, typeof value === 'string' ? { id: value, data: {} } : value]));
}

/**
 * Canonical JSON (sorted object members, no spaces): what a `contextHash` is the HMAC of, so the
 * order of a context's members does not change its hash.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const members = Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
