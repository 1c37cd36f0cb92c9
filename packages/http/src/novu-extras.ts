/**
 * Members Novu's SDKs send that Tidings does not use, by route — the one list. The engine refuses a
 * member it does not know (so a typo never goes silently unused); the HTTP adapter drops exactly
 * these before the engine sees the body, so Novu's clients work unchanged:
 * - `bridgeUrl`: where Novu's cloud reaches workflows defined in code (Novu Framework); Tidings runs
 *   the workflows it stores. Sent by `@novu/node` 2.x and `@novu/api`.
 * - `agentId`: Novu's AI-agent attribution, sent by `@novu/api` 3.x when set.
 */
export const NOVU_EXTRAS: Readonly<Record<string, readonly string[]>> = {
  'POST /v1/events/trigger': ['bridgeUrl', 'agentId'],
  'POST /v1/events/trigger/broadcast': ['bridgeUrl', 'agentId'],
  'POST /v1/events/trigger/bulk': ['events[].bridgeUrl', 'events[].agentId'],
};

function drop(value: unknown, path: readonly string[]): unknown {
  const [head, ...rest] = path;
  if (head === undefined || typeof value !== 'object' || value === null) return value;
  if (head === '[]') return Array.isArray(value) ? value.map((item) => drop(item, rest)) : value;
  if (Array.isArray(value) || !(head in value)) return value;
  const record = value as Record<string, unknown>;
  if (rest.length === 0) {
    const { [head]: _dropped, ...kept } = record;
    return kept;
  }
  return { ...record, [head]: drop(record[head], rest) };
}

/** The body without the members Novu's SDKs send on this route that Tidings does not use. */
export function withoutNovuExtras(route: string, body: unknown): unknown {
  let result = body;
  for (const member of NOVU_EXTRAS[route] ?? []) result = drop(result, member.replace(/\[\]/g, '.[]').split('.'));
  return result;
}
