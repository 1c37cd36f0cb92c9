import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
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
}

/** Most bytes of an answer read (and then discarded): a far side cannot make us buffer more. */
const MAX_ANSWER_BYTES = 64 * 1024;

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

/**
 * POSTs JSON to an http(s) URL. Only public addresses are reached unless `network.allow` lists more,
 * checked on the address actually connected to (so DNS cannot smuggle a private one in); redirects
 * are not followed; the answer's body is read up to 64 KB and never returned or quoted, so nothing
 * from the far side ends up in stored messages. Network failures, timeouts, 429 and 5xx throw a
 * retryable ProviderError; other non-2xx answers and refused addresses throw a permanent one.
 */
export async function postJson(url: string, body: unknown, options: PostOptions = {}): Promise<{ status: number }> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new ProviderError('the webhook URL is not a valid URL', { retryable: false, code: 'invalid_url' });
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw refused(`only http and https URLs are allowed, not ${target.protocol}`);
  const guard = addressGuard(options.network);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  const hostAllowed = guard.hostAllowed(host);
  if (!hostAllowed && isIP(host) !== 0) {
    const reason = guard.refusal(host);
    if (reason) throw refused(reason);
  }
  const payload = JSON.stringify(body);
  const timeoutMs = options.timeoutMs ?? 10_000;
  const requestOptions: RequestOptions = {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...options.headers },
    signal: AbortSignal.timeout(timeoutMs),
    ...(!hostAllowed && { lookup: guardedLookup(guard) }),
  };
  const status = await new Promise<number>((resolve, reject) => {
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(target, requestOptions, (res: IncomingMessage) => {
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_ANSWER_BYTES) res.destroy();
      });
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('close', () => resolve(res.statusCode ?? 0));
      res.on('error', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(payload);
  }).catch((error: unknown) => {
    if (error instanceof ProviderError) throw error;
    const name = (error as Error).name;
    const timedOut = name === 'TimeoutError' || name === 'AbortError';
    throw new ProviderError(timedOut ? `${target.host} did not answer within ${timeoutMs} ms` : `could not reach ${target.host}: ${(error as Error).message}`, {
      retryable: true,
      code: timedOut ? 'timeout' : 'network_error',
      cause: error,
    });
  });
  if (status >= 200 && status < 300) return { status };
  const retryable = status === 429 || status >= 500;
  const redirect = status >= 300 && status < 400 ? ' (redirects are not followed)' : '';
  throw new ProviderError(`${target.host} answered ${status}${redirect}`, { retryable, status });
}
