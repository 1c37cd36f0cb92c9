import type { Http2Bindings, HttpBindings } from '@hono/node-server';
import type { Job, Message, Tidings, TidingsEvents } from '@tidings/core';
import { pino, type DestinationStream, type Logger } from 'pino';

/**
 * The lines `tidings serve` logs: one JSON object per line (pino), with `level`, `time`, `pid`,
 * `hostname` and `msg`, and each line about a trigger carrying its `transactionId`:
 *
 *     {"level":"info","time":"…","pid":7,"hostname":"web-1","method":"POST","path":"/v1/events/trigger","status":201,"ms":12,"transactionId":"txn_1","msg":"request"}
 *     {"level":"warn",…,"transactionId":"txn_1","subscriberId":"ada","channel":"email","reason":"SMTP said 550","msg":"delivery failed"}
 *     {"level":"warn",…,"transactionId":"txn_2","subscriberId":"bob","channel":"sms","reason":"no active sms integration","msg":"delivery not_sent"}
 *     {"level":"info",…,"transactionId":"txn_4","subscriberId":"cy","channel":"email","stepIndex":1,"reason":"the subscriber turned email off for this workflow","msg":"delivery skipped"}
 *     {"level":"error",…,"transactionId":"txn_3","subscriberId":"cy","kind":"walk","error":"…","msg":"job failed"}
 *
 * A request line is written when its response has been sent (or the connection closed first:
 * `"aborted":true`); the path never carries the query string, and no header or body is ever logged
 * (API keys and Inbox tokens travel in those), only the transaction ids a trigger route answers with.
 * Delivery lines follow the engine's `message.failed`, `message.warning` (a step with nowhere to
 * go: no active integration, no address) and `step.skipped` (a preference, filter, schedule or cap
 * left the step out) events; job lines its `job.failed` (a job that gave up).
 */
export type { Logger } from 'pino';

/** The logger of `tidings serve`: JSON lines on stdout (or `destination`), written synchronously so none is lost at exit. */
export function serveLogger(destination: DestinationStream = pino.destination({ dest: 1, sync: true })): Logger {
  return pino({ timestamp: pino.stdTimeFunctions.isoTime, formatters: { level: (label) => ({ level: label }) } }, destination);
}

/** The request's path without its query string (which may carry tokens) or fragment. */
export function loggedPath(url: string): string {
  const path = url.split(/[?#]/, 1)[0] || '/';
  // The HTTP parser refuses control characters in the target; this keeps one line per request whatever it lets through.
  return path.replace(/[\u0000-\u0020\u007f]/g, (c) => encodeURIComponent(c));
}

type Fetch = (request: Request, env: HttpBindings | Http2Bindings) => unknown;

/** The routes that trigger: their request lines name the transactions the answer holds. */
const TRIGGER_PATHS: ReadonlySet<string> = new Set(['/v1/events/trigger', '/v1/events/trigger/bulk']);

/** The transaction ids of a trigger route's answer (`{ data: result }` or `{ data: result[] }`); none when it holds none. */
async function answeredTransactions(response: Response): Promise<string[]> {
  try {
    const data = ((await response.json()) as { data?: unknown } | null)?.data;
    return (Array.isArray(data) ? data : [data]).flatMap((r) => {
      const id = (r as { transactionId?: unknown } | null)?.transactionId;
      return typeof id === 'string' ? [id] : [];
    });
  } catch {
    return [];
  }
}

/** Wraps the server's fetch handler so each request writes one line once its response is over. */
export function requestLogging(fetch: Fetch, logger: Logger): Fetch {
  return (request, env) => {
    const started = performance.now();
    const { incoming, outgoing } = env as HttpBindings;
    const method = incoming.method ?? request.method;
    const path = loggedPath(incoming.url ?? new URL(request.url).pathname);
    let transactions: Promise<string[]> | null = null;
    outgoing.once('close', () => {
      const fields = { method, path, status: outgoing.statusCode, ms: Math.round(performance.now() - started), ...(!outgoing.writableFinished && { aborted: true }) };
      if (!transactions) return logger.info(fields, 'request');
      void transactions.then((ids) => logger.info({ ...fields, ...(ids.length === 1 ? { transactionId: ids[0] } : ids.length > 1 && { transactionIds: ids }) }, 'request'));
    });
    const answer = fetch(request, env);
    if (method !== 'POST' || !TRIGGER_PATHS.has(path)) return answer;
    // A copy of the answer is read beside the one the server sends.
    return Promise.resolve(answer).then((response) => {
      if (response instanceof Response) transactions = answeredTransactions(response.clone());
      return response;
    });
  };
}

/**
 * Writes a line per delivery that failed (`message.failed`), was not sent (`message.warning`) or was
 * skipped (`step.skipped`, at info level: a subscriber's choice is no fault) and per job that gave up
 * (`job.failed`), each with its transaction id; returns the unsubscribe.
 */
export function engineLogging(tidings: Pick<Tidings, 'events'>, logger: Logger): () => void {
  const about = (message: Message) => ({ transactionId: message.transactionId, subscriberId: message.subscriberId, channel: message.channel });
  const failed = ({ message, error }: { message: Message; error: string }) => logger.warn({ ...about(message), reason: error }, 'delivery failed');
  const notSent = ({ message, reason }: { message: Message; reason: string }) => logger.warn({ ...about(message), reason }, 'delivery not_sent');
  const skipped = ({ transactionId, subscriberId, channel, stepIndex, reason }: TidingsEvents['step.skipped']) => logger.info({ transactionId, subscriberId, channel, stepIndex, reason }, 'delivery skipped');
  const gaveUp = ({ job, error }: { job: Job; error: string }) => logger.error({ transactionId: job.transactionId, subscriberId: job.subscriberId, kind: job.kind, error }, 'job failed');
  tidings.events.on('message.failed', failed);
  tidings.events.on('message.warning', notSent);
  tidings.events.on('step.skipped', skipped);
  tidings.events.on('job.failed', gaveUp);
  return () => {
    tidings.events.off('message.failed', failed);
    tidings.events.off('message.warning', notSent);
    tidings.events.off('step.skipped', skipped);
    tidings.events.off('job.failed', gaveUp);
  };
}
