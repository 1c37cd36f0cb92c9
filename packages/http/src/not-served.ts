/** Where Novu's routes that Tidings does not serve are listed, each with why and what to use instead. */
export const NOVU_COMPATIBILITY_DOCS = 'https://github.com/tidings-dev/tidings/blob/main/docs/novu-compatibility.md';

/** A route of Novu's API that Tidings does not serve: what it is and what to use instead. */
interface NotServed {
  readonly method: string;
  readonly path: RegExp;
  /** The SDK method(s) that call it. */
  readonly novu: string;
  readonly instead: string;
}

const ID = '[^/]+';
const route = (method: string, path: string, novu: string, instead: string): NotServed => ({ method, path: new RegExp(`^${path}/?$`), novu, instead });

/**
 * Novu's routes not served, as docs/novu-compatibility.md lists them. A request that matches no
 * route of the app and matches one of these is told so by name (a plain 404 reads as a typo).
 */
const NOT_SERVED: readonly NotServed[] = [
  route('GET', '/v1/subscribers', 'subscribers.list', "it pages by offset; list subscribers with @novu/api's subscribers.search (GET /v2/subscribers)"),
  route('GET|PATCH', `/v1/subscribers/${ID}/preferences(/.*)?`, 'subscribers.getPreference / updatePreference and the other v1 preference routes', 'use the current preference routes, GET and PATCH /v2/subscribers/{id}/preferences'),
  route('GET', '/v1/messages', 'messages.retrieve / messages.list', "read a subscriber's messages through their feed, or a trigger's at GET /v1/notifications/{transactionId}/explain"),
  route('DELETE', `/v1/messages/${ID}`, 'messages.delete / deleteById', "delete a message through its subscriber (the Inbox's delete, or tidings.messages.delete)"),
  route('GET', `/v1/notifications/${ID}`, 'notifications.retrieve', "Tidings' notification is the whole trigger: read it by its transactionId at GET /v1/notifications/{transactionId}/explain, or list it with GET /v1/notifications?transactionId="),
  route('PUT', `/v2/workflows/${ID}/sync`, 'workflows.sync', 'each Tidings environment is its own engine: create the workflow in each'),
  route('DELETE', `/v1/integrations/${ID}`, 'integrations.delete', 'update it with active: false to take it out of use'),
  route('POST', `/v1/integrations/${ID}/(auto-configure|webhook/configure|mobile-link)`, "integrations' provider-side setup", "Tidings does not call providers' admin APIs: point the provider's status callbacks at Tidings yourself"),
  route('POST', '/v1/integrations/(chat/oauth|channel-connections/oauth|channel-endpoints/(oauth|link))', 'chat OAuth and channel connections', 'chat OAuth needs an app registered with the chat service, which Tidings does not run'),
  route('GET', '/v1/topics', 'topics.list (v1)', "use @novu/api's topics.list (GET /v2/topics), or check members by key (GET /v1/topics/{key}/subscribers/{subscriberId})"),
  route('GET|PATCH', `/v1/topics/${ID}`, 'topics.get / rename (v1)', "use @novu/api's topics.get and topics.update (/v2/topics/{key}), or check members by key (GET /v1/topics/{key}/subscribers/{subscriberId})"),
];

/**
 * The message of a 404 for a request no route matched: a Novu route Tidings does not serve is named
 * with what to use instead; any other path of the API points to the list of routes served.
 */
export function notFoundMessage(method: string, path: string): string {
  const known = NOT_SERVED.find((r) => r.method.split('|').includes(method) && r.path.test(path));
  if (known) return `Cannot ${method} ${path}: Tidings does not serve this route of Novu's API (${known.novu}); ${known.instead}. See ${NOVU_COMPATIBILITY_DOCS}`;
  if (/^\/v[12]\//.test(path)) return `Cannot ${method} ${path}: no such route. The routes served are listed at /openapi.json; Novu's routes Tidings does not serve, and what to use instead, at ${NOVU_COMPATIBILITY_DOCS}`;
  return `Cannot ${method} ${path}`;
}
