import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { ProviderError } from '@tidings/core';
import { addressGuard, type AddressGuard, type NetworkPolicy } from './network-policy.js';

export interface PostOptions {
  readonly headers?: Record<string, string>;
  /** @default 10_000 */
  readonly timeoutMs?: number;
  /** Which addresses may be reached. @default public addresses only */
  readonly network?: NetworkPolicy;
  /** The send's signal (`SendContext.signal`): aborting it aborts the request. */
  readonly signal?: AbortSignal;
}

/** Most bytes of an answer read (and then discarded): a far side cannot make us buffer more. */
const MAX_ANSWER_BYTES = 64 * 1024;

/** Collects an answer's body up to 64 KB: `add` says false once more came, and the reading should stop. */
export function cappedBody() {
  const chunks: Buffer[] = [];
  let read = 0;
  return {
    add(chunk: Buffer): boolean {
      if (read < MAX_ANSWER_BYTES) chunks.push(chunk.subarray(0, MAX_ANSWER_BYTES - read));
      read += chunk.length;
      return read <= MAX_ANSWER_BYTES;
    },
    text: () => Buffer.concat(chunks).toString('utf8'),
  };
}

const refused = (reason: string) => new ProviderError(`refused to connect: ${reason}`, { retryable: false, code: 'address_refused' });

/** A DNS lookup that refuses the connection when the name resolves to an address the guard forbids. */
function guardedLookup(guard: AddressGuard): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 4);
      const bad = addresses.map((a) => guard.refusal(a.address)).find((r) => r !== null);
      if (bad) return callback(refused(`${hostname} resolves to ${bad}`) as unknown as NodeJS.ErrnoException, '', 4);
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}

/** One request to a service: the body already encoded, its content type among the headers. */
export interface ServiceRequest {
  readonly method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly url: string;
  readonly headers?: Record<string, string>;
  readonly body?: string | Uint8Array;
}

/** A service's answer: its status, headers and body (the first 64 KB, as text). */
export interface ServiceAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** Where a request may go: its URL, and the DNS lookup that checks the address a host name resolves to. */
export interface GuardedTarget {
  readonly target: URL;
  /** Absent for an IP literal (checked already) and for a host name `network.allow` lists. */
  readonly lookup?: LookupFunction;
}

/**
 * The address guard every request to a service goes through (HTTP/1.1 and HTTP/2 alike): the URL
 * must be http(s); an IP-literal host must be an address the policy allows; a host name gets a DNS
 * lookup that refuses a forbidden resolved address, unless `network.allow` names the host. Throws a
 * permanent ProviderError (`invalid_url`, `address_refused`).
 */
export function guardedTarget(url: string, network?: NetworkPolicy): GuardedTarget {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new ProviderError('the URL is not a valid URL', { retryable: false, code: 'invalid_url' });
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw refused(`only http and https URLs are allowed, not ${target.protocol}`);
  const guard = addressGuard(network);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (guard.hostAllowed(host)) return { target };
  if (isIP(host) !== 0) {
    const reason = guard.refusal(host);
    if (reason) throw refused(reason);
    return { target };
  }
  return { target, lookup: guardedLookup(guard) };
}

/**
 * The ProviderError for a send the engine gave up on (its signal aborted): the reason it aborted with
 * when that is a ProviderError, else a retryable `timeout` (the engine stops waiting when a send
 * takes too long).
 */
export function abandoned(signal: AbortSignal): ProviderError {
  if (signal.reason instanceof ProviderError) return signal.reason;
  return new ProviderError('the send was abandoned: the engine stopped waiting for it', { retryable: true, code: 'timeout', cause: signal.reason });
}

/**
 * The ProviderError for a request that got no answer: a refused address as it is (permanent), a
 * send the engine gave up on (see `abandoned`), a timeout (`TimeoutError`/`AbortError`) or any
 * other network failure as a retryable one.
 */
export function unreachable(error: unknown, target: URL, timeoutMs: number, signal?: AbortSignal): ProviderError {
  if (error instanceof ProviderError) return error;
  if (signal?.aborted) return abandoned(signal);
  const name = (error as Error).name;
  const timedOut = name === 'TimeoutError' || name === 'AbortError';
  return new ProviderError(timedOut ? `${target.host} did not answer within ${timeoutMs} ms` : `could not reach ${target.host}: ${(error as Error).message}`, {
    retryable: true,
    code: timedOut ? 'timeout' : 'network_error',
    cause: error,
  });
}

/**
 * Sends one request to an http(s) URL and resolves with the answer, whatever its status. Only public
 * addresses are reached unless `network.allow` lists more, checked on the address actually connected
 * to (so DNS cannot smuggle a private one in); redirects are not followed; at most 64 KB of the
 * answer is read. Network failures and timeouts throw a retryable ProviderError; a refused address a
 * permanent one. What the answer says is for the provider to read (an id, an error code): callers
 * never store its text.
 */
export async function serviceRequest(request: ServiceRequest, options: PostOptions = {}): Promise<ServiceAnswer> {
  const { target, lookup } = guardedTarget(request.url, options.network);
  const timeoutMs = options.timeoutMs ?? 10_000;
  const body = request.body;
  const requestOptions: RequestOptions = {
    method: request.method ?? 'POST',
    headers: { ...(body !== undefined && { 'content-length': Buffer.byteLength(body) }), ...options.headers, ...request.headers },
    ...(lookup && { lookup }),
  };
  const { signal } = options;
  if (signal?.aborted) throw abandoned(signal);
  // One timer and one listener per request: AbortSignal.timeout with AbortSignal.any cost a measurable
  // part of a send's CPU at hundreds of sends a second.
  let settle = () => {};
  return new Promise<ServiceAnswer>((resolve, reject) => {
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(target, requestOptions, (res: IncomingMessage) => {
      const collected = cappedBody();
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        settle();
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: collected.text() });
      };
      res.on('data', (chunk: Buffer) => {
        if (!collected.add(chunk)) res.destroy();
      });
      res.on('end', finish);
      res.on('close', finish);
      res.on('error', finish);
    });
    const stop = (name: 'TimeoutError' | 'AbortError') => () => req.destroy(Object.assign(new Error(name === 'TimeoutError' ? 'timed out' : 'aborted'), { name }));
    const timer = setTimeout(stop('TimeoutError'), timeoutMs);
    const onAbort = stop('AbortError');
    signal?.addEventListener('abort', onAbort, { once: true });
    settle = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    req.on('error', (error) => {
      settle();
      reject(error);
    });
    req.end(body);
  }).catch((error: unknown) => {
    throw unreachable(error, target, timeoutMs, signal);
  });
}

/** `Retry-After` (seconds, or an HTTP date) as milliseconds from now, when the answer has one. */
export function retryAfterMs(answer: ServiceAnswer, now = Date.now()): number | undefined {
  const value = answer.headers['retry-after'];
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * The ProviderError for an answer that is not a success: 429 and 5xx are retryable (honouring
 * `Retry-After`), everything else final. `code` is the service's own error code when it gave one
 * (it becomes the message's `errorId`), else `http_<status>`.
 */
export function answerError(service: string, answer: ServiceAnswer, code?: string): ProviderError {
  const retryable = answer.status === 429 || answer.status >= 500 || answer.status === 0;
  const redirect = answer.status >= 300 && answer.status < 400 ? ' (redirects are not followed)' : '';
  const after = retryable ? retryAfterMs(answer) : undefined;
  return new ProviderError(`${service} answered ${answer.status}${code ? ` (${code})` : ''}${redirect}`, {
    retryable,
    status: answer.status,
    ...(code !== undefined && { code }),
    ...(after !== undefined && { retryAfterMs: after }),
  });
}

/** The answer's body as JSON, or undefined when it is not JSON. */
export function answerJson(answer: ServiceAnswer): unknown {
  try {
    return JSON.parse(answer.body);
  } catch {
    return undefined;
  }
}

/**
 * A service's documented URL with its scheme and host replaced by `baseUrl` (its path kept), so a
 * provider can be pointed at a regional host, a proxy or a test server.
 */
export function atBase(documented: string, baseUrl: string | undefined): string {
  if (!baseUrl) return documented;
  const from = new URL(documented);
  const base = new URL(baseUrl);
  return `${base.origin}${base.pathname.replace(/\/$/, '')}${from.pathname}${from.search}`;
}

/**
 * POSTs JSON to an http(s) URL (see `serviceRequest` for the address guard). The answer's body is
 * never returned or quoted, so nothing from the far side ends up in stored messages. Network
 * failures, timeouts, 429 and 5xx throw a retryable ProviderError; other non-2xx answers and refused
 * addresses throw a permanent one.
 */
export async function postJson(url: string, body: unknown, options: PostOptions = {}): Promise<{ status: number }> {
  const answer = await serviceRequest({ url, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }, options);
  if (answer.status >= 200 && answer.status < 300) return { status: answer.status };
  const target = new URL(url);
  throw answerError(target.host, answer);
}
