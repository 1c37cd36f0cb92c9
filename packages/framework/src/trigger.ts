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

/**
 * Sends a trigger over HTTP the way @novu/framework's `workflow.trigger()` does, so a workflow file
 * keeps working against `tidings serve` (point NOVU_API_URL at it). In the process of an engine,
 * `tidings.trigger` is the direct way.
 */
export async function triggerOverHttp<P>(name: string, request: TriggerRequest<P>): Promise<{ acknowledged: boolean; status: string; transactionId?: string }> {
  const { secretKey = process.env['NOVU_SECRET_KEY'] ?? process.env['NOVU_API_KEY'], apiUrl = process.env['NOVU_API_URL'] ?? 'https://api.novu.co', ...event } = request;
  if (!secretKey) throw new Error('workflow.trigger(): no secret key: pass secretKey or set NOVU_SECRET_KEY');
  const response = await fetch(new URL('/v1/events/trigger', apiUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `ApiKey ${secretKey}` },
    body: JSON.stringify({ name, ...event }),
  });
  const body = (await response.json().catch(() => null)) as { data?: { acknowledged: boolean; status: string; transactionId?: string }; message?: unknown } | null;
  if (!response.ok || !body?.data) throw new Error(`workflow.trigger(): ${response.status} ${typeof body?.message === 'string' ? body.message : JSON.stringify(body?.message ?? body)}`);
  return body.data;
}
