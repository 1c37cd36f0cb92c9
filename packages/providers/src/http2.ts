import type { IncomingHttpHeaders } from 'node:http';
import { connect, constants, type ClientHttp2Session } from 'node:http2';
import { ProviderError } from '@tidings/core';
import { abandoned, cappedBody, guardedTarget, unreachable, type PostOptions, type ServiceAnswer, type ServiceRequest } from './http.js';

/** One HTTP/2 connection to a service, for many requests (APNs wants one connection for many devices). */
export interface Http2Session {
  /** Sends one request (its URL at the session's origin) and resolves with the answer, whatever its status. */
  request(request: ServiceRequest): Promise<ServiceAnswer>;
  /** Ends the connection once the requests under way are answered. */
  close(): void;
}

/** Node wraps the connection's error in ERR_HTTP2_STREAM_CANCEL for the streams still waiting on it. */
const connectionCause = (error: unknown): unknown =>
  (error as { code?: unknown } | null)?.code === 'ERR_HTTP2_STREAM_CANCEL' && (error as Error).cause !== undefined ? (error as Error).cause : error;

/**
 * An HTTP/2 connection to `origin` (`https:` is TLS h2, `http:` cleartext h2c), behind the same address
 * guard as `serviceRequest`: an IP literal the policy forbids throws at once (a permanent
 * `address_refused`), and a host name is connected to only when the address it resolves to is allowed.
 * It connects on the first request, and again after the service closed it (a GOAWAY). Each request
 * times out after `timeoutMs` (connecting included), reads at most 64 KB of the answer, and fails as
 * `serviceRequest` does: a retryable `timeout` or `network_error`, or the refusal. Once `signal`
 * aborts, the requests under way are cancelled and no new one starts.
 */
export function http2Session(origin: string, options: PostOptions = {}): Http2Session {
  const { target, lookup } = guardedTarget(origin, options.network);
  const timeoutMs = options.timeoutMs ?? 10_000;
  let session: ClientHttp2Session | undefined;
  /** Why the connection failed: the later requests fail with it too rather than reconnect. */
  let failure: unknown;
  let closed = false;

  function connection(): ClientHttp2Session {
    if (closed) throw new Error('the HTTP/2 session is closed');
    if (failure !== undefined) throw failure;
    if (session && !session.closed && !session.destroyed) return session;
    const opened = connect(target.origin, { ...(lookup && { lookup }) });
    opened.on('error', (error) => (failure = error));
    session = opened;
    return opened;
  }

  return {
    request(request) {
      return new Promise<ServiceAnswer>((resolve, reject) => {
        if (options.signal?.aborted) throw abandoned(options.signal);
        const url = new URL(request.url);
        if (url.origin !== target.origin) throw new ProviderError(`${url.origin} is not this session's origin (${target.origin})`, { retryable: false, code: 'invalid_url' });
        const body = request.body;
        const stream = connection().request(
          {
            ':method': request.method ?? 'POST',
            ':path': `${url.pathname}${url.search}`,
            ...(body !== undefined && { 'content-length': Buffer.byteLength(body) }),
            ...options.headers,
            ...request.headers,
          },
          { signal: options.signal ? AbortSignal.any([AbortSignal.timeout(timeoutMs), options.signal]) : AbortSignal.timeout(timeoutMs) },
        );
        let status: number | undefined;
        let headers: IncomingHttpHeaders = {};
        const collected = cappedBody();
        const finish = () => resolve({ status: status ?? 0, headers, body: collected.text() });
        stream.on('response', (answer) => {
          status = Number(answer[':status']);
          headers = Object.fromEntries(Object.entries(answer).filter(([name]) => !name.startsWith(':')));
        });
        stream.on('data', (chunk: Buffer) => {
          if (!collected.add(chunk)) stream.close(constants.NGHTTP2_CANCEL);
        });
        stream.on('end', finish);
        stream.on('error', reject);
        stream.on('close', () => (status === undefined ? reject(failure ?? new Error('the stream closed without an answer')) : finish()));
        stream.end(body);
      }).catch((error: unknown) => {
        // A header Node refuses to send (a line break in an override, say) will be refused on every try.
        const code = (error as { code?: unknown }).code;
        if (typeof code === 'string' && /^ERR_(HTTP2_INVALID|INVALID_CHAR|INVALID_HTTP_TOKEN)/.test(code)) {
          throw new ProviderError(`the request cannot be sent: ${(error as Error).message}`, { retryable: false, code: 'invalid_request', cause: error });
        }
        throw unreachable(connectionCause(failure ?? error), target, timeoutMs, options.signal);
      });
    },
    close() {
      closed = true;
      session?.close();
    },
  };
}

/**
 * Sends one request over HTTP/2 (`https:` TLS h2, `http:` h2c) on a connection of its own: see
 * `http2Session` for the address guard, the timeout and the errors. To send many requests to one
 * service, open an `http2Session` and close it after.
 */
export async function serviceRequestHttp2(request: ServiceRequest, options: PostOptions = {}): Promise<ServiceAnswer> {
  const session = http2Session(request.url, options);
  try {
    return await session.request(request);
  } finally {
    session.close();
  }
}
