import { randomUUID } from 'node:crypto';
import { serviceServer, type ServiceCall, type ServiceReply } from './push-and-chat-server.js';

export interface OneSignalFakeOptions {
  readonly appId: string;
  /** The app's REST API key. */
  readonly apiKey: string;
  /** The player (subscription) ids that are subscribed; any other is invalid. */
  readonly subscribed: readonly string[];
}

const errors = (status: number, ...messages: string[]): ServiceReply => ({ status, json: { errors: messages } });

/**
 * Plays OneSignal's create-notification API (`POST /api/v1/notifications`): checks the API key
 * (`Basic` or `Key`), the app id and the content, answers `{ id, recipients }` with
 * `errors.invalid_player_ids` for the unknown ones, or `{ id: '', errors: ['All included players are
 * not subscribed'] }` when none is subscribed. A notification whose `idempotency_key` OneSignal has
 * seen already is not sent again: the first answer is given back (OneSignal keeps keys 30 days).
 */
export async function oneSignalFake(options: OneSignalFakeOptions) {
  const notifications: string[] = [];
  const byKey = new Map<string, ServiceReply>();
  const answer = (call: ServiceCall): ServiceReply => {
    if (call.method !== 'POST' || call.path !== '/api/v1/notifications') return errors(404, 'Not Found');
    const auth = call.headers.authorization;
    if (auth !== `Basic ${options.apiKey}` && auth !== `Key ${options.apiKey}`) {
      return errors(403, "Access denied.  Please include an 'Authorization: ...' header with a valid API key (https://documentation.onesignal.com/docs/en/keys-and-ids#api-keys).");
    }
    const body = call.json;
    if (body?.app_id !== options.appId) return errors(400, 'app_id not found. You may be missing a Content-Type: application/json header.');
    if (typeof body.contents?.en !== 'string') return errors(400, 'Notification content must not be null for any languages.');
    const ids: unknown = body.include_player_ids;
    if (!Array.isArray(ids) || ids.length === 0) return errors(400, 'You must include which players, segments, or tags you wish to send this notification to.');
    const valid = ids.filter((id) => options.subscribed.includes(id));
    const invalid = ids.filter((id) => !options.subscribed.includes(id));
    if (valid.length === 0) return { status: 200, json: { id: '', recipients: 0, errors: ['All included players are not subscribed'] } };
    const key: unknown = body.idempotency_key;
    const before = typeof key === 'string' ? byKey.get(key) : undefined;
    if (before) return before;
    const id = randomUUID();
    notifications.push(id);
    const reply = { status: 200, json: { id, recipients: valid.length, ...(invalid.length > 0 && { errors: { invalid_player_ids: invalid } }) } };
    if (typeof key === 'string') byKey.set(key, reply);
    return reply;
  };
  const server = await serviceServer(answer);
  return { ...server, notifications };
}
