import { randomBytes } from 'node:crypto';
import { serviceServer, type ServiceCall, type ServiceReply } from './push-and-chat-server.js';

export interface WhatsAppFakeOptions {
  /** The business phone number's id (Meta's "Phone number ID"). */
  readonly phoneNumberId: string;
  readonly accessToken: string;
  /** The WhatsApp users messages reach; any other is undeliverable (131026). */
  readonly reachable: readonly string[];
  /** How many first requests hit the throughput limit (130429). */
  readonly throttled?: number;
}

const graphError = (status: number, code: number, message: string, type = 'OAuthException', details?: string): ServiceReply => ({
  status,
  json: { error: { message, type, code, ...(details && { error_data: { messaging_product: 'whatsapp', details } }), fbtrace_id: 'AbCdEfGhIjK' } },
});

/**
 * Plays the WhatsApp Cloud API's `POST /v18.0/{phone-number-id}/messages`: checks the bearer token
 * and the message (`messaging_product`, `to`, a text body or a template), answers
 * `{ messaging_product, contacts, messages: [{ id }] }`, or the Graph API's `{ error: { code, ... } }`.
 */
export async function whatsAppFake(options: WhatsAppFakeOptions) {
  const delivered: { to: string; id: string; body: any }[] = [];
  let requests = 0;
  const answer = (call: ServiceCall): ServiceReply => {
    if (call.method !== 'POST' || call.path !== `/v18.0/${options.phoneNumberId}/messages`) {
      return graphError(400, 100, "Unsupported post request. Object with ID 'unknown' does not exist, cannot be loaded due to missing permissions, or does not support this operation.", 'GraphMethodException');
    }
    if (call.headers.authorization !== `Bearer ${options.accessToken}`) return graphError(401, 190, 'Error validating access token: Session has expired.');
    if (++requests <= (options.throttled ?? 0)) return graphError(400, 130429, '(#130429) Rate limit hit', 'OAuthException', 'Cloud API message throughput has been reached.');
    const body = call.json;
    if (body?.messaging_product !== 'whatsapp') return graphError(400, 100, '(#100) The parameter messaging_product is required.');
    if (typeof body.to !== 'string') return graphError(400, 100, '(#100) The parameter to is required.');
    if (body.type === 'text' ? typeof body.text?.body !== 'string' : body.type !== 'template' || typeof body.template?.name !== 'string') {
      return graphError(400, 100, '(#100) Invalid parameter');
    }
    if (!options.reachable.includes(body.to)) return graphError(400, 131026, '(#131026) Message Undeliverable.', 'OAuthException', 'Message failed to send because the recipient phone number is not a WhatsApp phone number.');
    const id = `wamid.${randomBytes(12).toString('base64url')}`;
    delivered.push({ to: body.to, id, body });
    return { status: 200, json: { messaging_product: 'whatsapp', contacts: [{ input: body.to, wa_id: body.to.replace(/\D/g, '') }], messages: [{ id }] } };
  };
  const server = await serviceServer(answer);
  return { ...server, delivered };
}
