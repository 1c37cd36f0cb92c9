import type { Http2Bindings, HttpBindings } from '@hono/node-server';
import type { Message, Tidings } from '@tidings/core';

/**
 * The lines `tidings serve` logs, one per event, in a stable format a person can read and a log
 * shipper can split on spaces:
 *
 *     POST /v1/events/trigger 201 12ms
 *     GET /v1/subscribers/ada/events 200 5310ms aborted
 *     delivery failed transaction=txn_1 subscriber=ada channel=email reason="SMTP said 550"
 *     delivery not_sent transaction=txn_2 subscriber=bob channel=sms reason="no active sms integration"
 *
 * A request line is written when its response has been sent (or the connection closed first:
 * `aborted`); the path never carries the query string, and no header or body is ever logged (API
 * keys and Inbox tokens travel in those). Delivery lines follow the engine's `message.failed` and
 * `message.warning` (a step with nowhere to go: no active integration, no address) events.
 */
export type LogWriter = (line: string) => void;

export const stdoutLine: LogWriter = (line) => {
  process.stdout.write(`${line}\n`);
};

/** The request's path without its query string (which may carry tokens) or fragment. */
export function loggedPath(url: string): string {
  const path = url.split(/[?#]/, 1)[0] || '/';
  // The HTTP parser refuses control characters in the target; this keeps one line per request whatever it lets through.
  return path.replace(/[\u0000-\u0020\u007f]/g, (c) => encodeURIComponent(c));
}

type Fetch = (request: Request, env: HttpBindings | Http2Bindings) => unknown;

/** Wraps the server's fetch handler so each request writes one line once its response is over. */
export function requestLogging(fetch: Fetch, write: LogWriter = stdoutLine): Fetch {
  return (request, env) => {
    const started = performance.now();
    const { incoming, outgoing } = env as HttpBindings;
    const method = incoming.method ?? request.method;
    const path = loggedPath(incoming.url ?? new URL(request.url).pathname);
    outgoing.once('close', () => {
      const ms = Math.round(performance.now() - started);
      write(`${method} ${path} ${outgoing.statusCode} ${ms}ms${outgoing.writableFinished ? '' : ' aborted'}`);
    });
    return fetch(request, env);
  };
}

/** A field's value as one token: bare when it is plain, JSON-quoted otherwise (spaces, quotes, line breaks). */
const token = (value: string) => (/^[\w.:@+\/-]+$/.test(value) ? value : JSON.stringify(value));

const deliveryLine = (outcome: 'failed' | 'not_sent', message: Message, reason: string) =>
  `delivery ${outcome} transaction=${token(message.transactionId)} subscriber=${token(message.subscriberId)} channel=${message.channel} reason=${JSON.stringify(reason)}`;

/** Writes a line per delivery that failed (`message.failed`) or was not sent (`message.warning`); returns the unsubscribe. */
export function deliveryLogging(tidings: Pick<Tidings, 'events'>, write: LogWriter = stdoutLine): () => void {
  const failed = ({ message, error }: { message: Message; error: string }) => write(deliveryLine('failed', message, error));
  const notSent = ({ message, reason }: { message: Message; reason: string }) => write(deliveryLine('not_sent', message, reason));
  tidings.events.on('message.failed', failed);
  tidings.events.on('message.warning', notSent);
  return () => {
    tidings.events.off('message.failed', failed);
    tidings.events.off('message.warning', notSent);
  };
}
