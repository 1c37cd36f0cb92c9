import { checkedPayload } from './novu-shapes.js';
import type { Schema } from './schema.js';

/** What `workflow.trigger()` sends, as @novu/framework's trigger takes it. */
export interface TriggerRequest<P> {
  to: string | { subscriberId: string; [key: string]: unknown } | (string | { subscriberId: string; [key: string]: unknown })[];
  payload?: P;
  transactionId?: string;
  overrides?: Record<string, unknown>;
  actor?: string | { subscriberId: string; [key: string]: unknown };
  context?: Record<string, string>;
  /** The server's secret key. @default process.env.NOVU_SECRET_KEY (or NOVU_API_KEY) */
  secretKey?: string;
  /** @default process.env.NOVU_API_URL, else https://api.novu.co */
  apiUrl?: string;
}

/** What `workflow.trigger()` resolves to, as @novu/framework's: the server's answer, and a cancel of the event. */
export interface TriggerResult {
  /** The server's response body: `{ data: { acknowledged, status, transactionId } }`. */
  data: { data: { acknowledged: boolean; status: string; transactionId?: string } };
  /** Cancels the event's pending steps (`DELETE /v1/events/trigger/:transactionId`); resolves to the server's answer. */
  cancel(): Promise<unknown>;
}

/**
 * Sends a trigger over HTTP as @novu/framework's `workflow.trigger()` does, so a workflow file keeps
 * working against `tidings serve` (point NOVU_API_URL at it): the payload checked against the
 * workflow's schema first (defaults applied; a refusal throws naming each field, and nothing is sent).
 * In the process of an engine, `tidings.trigger` is the direct way.
 */
export async function triggerOverHttp<P>(name: string, request: TriggerRequest<P>, payloadSchema: Schema | undefined): Promise<TriggerResult> {
  const { secretKey = process.env['NOVU_SECRET_KEY'] ?? process.env['NOVU_API_KEY'], apiUrl = process.env['NOVU_API_URL'] ?? 'https://api.novu.co', payload = {}, ...event } = request;
  if (!secretKey) throw new Error(`workflow("${name}").trigger(): no secret key: pass secretKey or set NOVU_SECRET_KEY`);
  let sent: unknown = payload;
  if (payloadSchema) {
    const checked = await checkedPayload(payloadSchema, payload);
    if (!checked.ok) throw new Error(`workflow("${name}").trigger(): the payload was refused: ${checked.errors.join('; ')}`);
    sent = checked.payload;
  }
  const call = async (method: 'POST' | 'DELETE', path: string, body?: unknown) => {
    const response = await fetch(new URL(path, apiUrl), {
      method,
      headers: { 'content-type': 'application/json', authorization: `ApiKey ${secretKey}` },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const answer = (await response.json().catch(() => null)) as { message?: unknown } | null;
    if (!response.ok) throw new Error(`workflow("${name}").trigger(): ${response.status} ${typeof answer?.message === 'string' ? answer.message : JSON.stringify(answer?.message ?? answer)}`);
    return answer;
  };
  const data = (await call('POST', '/v1/events/trigger', { name, ...event, payload: sent })) as TriggerResult['data'];
  return { data, cancel: () => call('DELETE', `/v1/events/trigger/${encodeURIComponent(data.data.transactionId ?? '')}`) };
}
