import { X509Certificate, verify } from 'node:crypto';
import { rootCertificates } from 'node:tls';
import { ProviderError } from '@tidings/core';
import { atBase, serviceRequest } from './http.js';
import { requestOptions, type ServiceProviderOptions } from './service-options.js';
import { refusal, text } from './status-callbacks.js';

const SERVICE = 'SNS';

/**
 * SNS's own hosts, where it keeps its signing certificates and answers subscription confirmations:
 * `sns.<region>.amazonaws.com` (GovCloud's `us-gov-*` regions included), and
 * `sns.<region>.amazonaws.com.cn` for the China regions (`cn-*`) only. The region must have a region's
 * shape, so S3's bucket hosts (`sns.s3.amazonaws.com`, `sns.s3-eu-west-1.amazonaws.com`,
 * `sns.s3-website-us-east-1.amazonaws.com`), which anyone may own, never match.
 */
const SNS_HOST = /^sns\.(?<region>[a-z]{2}(?:-[a-z]+)+-\d{1,2})\.amazonaws\.com(?<china>\.cn)?$/;

/** SNS's certificate files: `SimpleNotificationService-<hex>.pem` at the host's root. */
const CERTIFICATE_PATH = /^\/SimpleNotificationService-[0-9a-f]{1,64}\.pem$/;

/** The members SNS signs, in the order it signs them, per message type (absent members are skipped). */
export const SNS_SIGNED_KEYS: Readonly<Record<string, readonly string[]>> = {
  Notification: ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type'],
  SubscriptionConfirmation: ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'],
  UnsubscribeConfirmation: ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'],
};

/** Certificates kept at most, by URL, the least recently used dropped first: SNS uses one per region, rotated now and then. */
export const MAX_SNS_CERTIFICATES = 32;

/** Certificate URLs not in the cache fetched at most, per minute (per provider): a caller inventing URLs costs that many fetches, never more. */
export const MAX_SNS_CERTIFICATE_FETCHES_PER_MINUTE = 10;

/** How long a URL that answered something other than a usable certificate is refused without being fetched again. */
const REFUSED_FOR_MS = 10 * 60_000;

/** Most certificates one file may hold (the signing certificate and the CAs above it). */
const MAX_CHAIN = 5;

const regionOf = (url: URL) => SNS_HOST.exec(url.hostname)?.groups?.['region'];

/** An https URL on an SNS host (no port, no credentials), or a refusal naming `what`. */
export function snsUrl(value: unknown, what: string): string {
  const raw = text(value);
  let url: URL | undefined;
  try {
    url = raw ? new URL(raw) : undefined;
  } catch {
    url = undefined;
  }
  const match = url ? SNS_HOST.exec(url.hostname) : null;
  const partitionFits = match !== null && (match.groups!['china'] !== undefined) === match.groups!['region']!.startsWith('cn-');
  if (!url || url.protocol !== 'https:' || !partitionFits || url.username || url.password || url.port) {
    throw refusal(SERVICE, `${what} is not an https URL on an sns.<region>.amazonaws.com host`);
  }
  return url.toString();
}

/**
 * The names an SNS signing certificate for `region` may be issued to, as AWS's SDK for Java v2
 * (`SnsHostProvider`) expects them: `sns.amazonaws.com`, or `sns-signing.<region>.amazonaws.com` in
 * the regions opened since 2019; `sns-<region>.amazonaws.com.cn` in China; in GovCloud
 * `sns-us-gov-west-1.amazonaws.com` (both regions).
 */
export function snsCertificateNames(region: string): readonly string[] {
  if (region.startsWith('cn-')) return [`sns-${region}.amazonaws.com.cn`];
  if (region.startsWith('us-gov-')) return ['sns-us-gov-west-1.amazonaws.com', `sns-${region}.amazonaws.com`];
  return ['sns.amazonaws.com', `sns-signing.${region}.amazonaws.com`];
}

const validAt = (certificate: X509Certificate, now: number) => now >= Date.parse(certificate.validFrom) && now <= Date.parse(certificate.validTo);

let nodeRoots: X509Certificate[] | undefined;

/**
 * What is wrong with the chain a certificate file carries (undefined when nothing is): each
 * certificate must be issued and signed by the next, a CA valid at `now`, and the last must be one of
 * `roots` or issued and signed by one.
 */
function chainProblem(chain: readonly X509Certificate[], roots: readonly X509Certificate[], now: number): string | undefined {
  for (let i = 0; i + 1 < chain.length; i++) {
    const [child, parent] = [chain[i]!, chain[i + 1]!];
    if (!parent.ca || !validAt(parent, now) || !child.checkIssued(parent) || !child.verify(parent.publicKey)) return `certificate ${i + 1} of the file is not issued by the CA after it`;
  }
  const top = chain.at(-1)!;
  const anchored = roots.some((root) => root.fingerprint256 === top.fingerprint256 || (top.checkIssued(root) && top.verify(root.publicKey)));
  return anchored ? undefined : 'its chain does not lead to a trusted root CA';
}

/** SNS signing certificates by the URL fetched, for one provider. */
export interface SnsCertificates {
  /**
   * The certificate at `certUrl` (an https URL on an SNS host, checked by `snsUrl`), valid at `now`;
   * otherwise a CallbackRefused saying why, never another error: a certificate that cannot be had is
   * the callback's fault or the network's, and the callback is refused either way.
   */
  get(certUrl: string, now?: number): Promise<X509Certificate>;
}

export interface SnsCertificateTrust {
  /**
   * The root CAs (PEM) a certificate file that carries its chain must lead to. SNS's own files hold the
   * signing certificate alone: it is then trusted because it came over HTTPS from the SNS host itself,
   * whose TLS certificate Node checks against its root CAs. @default Node's root CAs (`tls.rootCertificates`)
   */
  readonly roots?: readonly string[];
}

type Entry = { readonly certificate: Promise<X509Certificate>; readonly until: number };

/** A certificate fetch that got no usable answer: refused like the rest, but not remembered. */
class Unanswered extends Error {}

/**
 * Fetches SNS signing certificates through the guarded `serviceRequest` (GET; at `options.baseUrl` in
 * place of the SNS host when set, a test server) and keeps them by URL, at most
 * `MAX_SNS_CERTIFICATES`. A file is taken when its first certificate is issued to one of the names
 * SNS signs with in the URL's region (`snsCertificateNames`, exactly: no wildcard) and any chain it
 * carries leads to a trusted root (`trust.roots`). A URL whose answer is not such a certificate is
 * refused without another fetch for 10 minutes; one that did not answer (a network failure, a
 * timeout, a 5xx or 429) is tried again next time. At most `MAX_SNS_CERTIFICATE_FETCHES_PER_MINUTE`
 * URLs are fetched a minute; past that an unknown URL is refused without a fetch.
 */
export function snsCertificates(options: ServiceProviderOptions, trust: SnsCertificateTrust = {}): SnsCertificates {
  const cache = new Map<string, Entry>();
  const fetchedAt: number[] = [];
  const roots = () => (trust.roots ? trust.roots.map((pem) => new X509Certificate(pem)) : (nodeRoots ??= rootCertificates.map((pem) => new X509Certificate(pem))));

  async function fetchCertificate(certUrl: string, now: number): Promise<X509Certificate> {
    let answer;
    try {
      answer = await serviceRequest({ method: 'GET', url: atBase(certUrl, options.baseUrl), headers: { accept: 'application/x-pem-file, */*', 'user-agent': 'tidings' } }, requestOptions(options));
    } catch (error) {
      throw new Unanswered(`the SigningCertURL could not be fetched (${error instanceof ProviderError ? error.message : 'no answer'})`);
    }
    if (answer.status >= 500 || answer.status === 429) throw new Unanswered(`the SigningCertURL answered ${answer.status}`);
    if (answer.status !== 200) throw refusal(SERVICE, `the SigningCertURL answered ${answer.status}`);
    const pems = answer.body.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
    let chain: X509Certificate[];
    try {
      chain = pems.slice(0, MAX_CHAIN + 1).map((pem) => new X509Certificate(pem));
    } catch {
      chain = [];
    }
    if (chain.length === 0) throw refusal(SERVICE, 'the SigningCertURL holds no X.509 certificate');
    if (chain.length > MAX_CHAIN) throw refusal(SERVICE, `the SigningCertURL holds more than ${MAX_CHAIN} certificates`);
    const names = snsCertificateNames(regionOf(new URL(certUrl))!);
    if (!names.some((name) => chain[0]!.checkHost(name, { wildcards: false }) !== undefined)) {
      throw refusal(SERVICE, `the certificate at the SigningCertURL is not issued to SNS (${names.join(' or ')})`);
    }
    const problem = chain.length > 1 ? chainProblem(chain, roots(), now) : undefined;
    if (problem) throw refusal(SERVICE, `the certificate at the SigningCertURL is not trusted: ${problem}`);
    return chain[0]!;
  }

  return {
    async get(certUrl, now = Date.now()) {
      const url = new URL(snsUrl(certUrl, 'the SigningCertURL'));
      if (!CERTIFICATE_PATH.test(url.pathname) || url.search || url.hash) throw refusal(SERVICE, 'the SigningCertURL is not an SNS signing certificate (/SimpleNotificationService-<hex>.pem)');
      const key = url.toString();
      let entry = cache.get(key);
      if (entry && entry.until <= Date.now()) {
        cache.delete(key);
        entry = undefined;
      }
      if (entry) {
        // Most recently used last: the first key is the one to drop.
        cache.delete(key);
        cache.set(key, entry);
      } else {
        const minuteAgo = Date.now() - 60_000;
        while (fetchedAt.length > 0 && fetchedAt[0]! <= minuteAgo) fetchedAt.shift();
        if (fetchedAt.length >= MAX_SNS_CERTIFICATE_FETCHES_PER_MINUTE) throw refusal(SERVICE, `more than ${MAX_SNS_CERTIFICATE_FETCHES_PER_MINUTE} new SigningCertURLs in a minute; this one was not fetched`);
        fetchedAt.push(Date.now());
        const certificate = fetchCertificate(key, now);
        entry = { certificate, until: Number.POSITIVE_INFINITY };
        if (cache.size >= MAX_SNS_CERTIFICATES) cache.delete(cache.keys().next().value!);
        cache.set(key, entry);
        certificate.catch((error: unknown) => {
          // A URL that did not answer is asked again next time; one that answered wrongly is refused for a while.
          if (cache.get(key) !== entry) return;
          if (error instanceof Unanswered) cache.delete(key);
          else cache.set(key, { certificate, until: Date.now() + REFUSED_FOR_MS });
        });
      }
      let certificate: X509Certificate;
      try {
        certificate = await entry.certificate;
      } catch (error) {
        throw error instanceof Unanswered ? refusal(SERVICE, error.message) : error;
      }
      if (!validAt(certificate, now)) throw refusal(SERVICE, 'the SNS signing certificate is not valid now');
      return certificate;
    },
  };
}

/**
 * Checks an SNS message's `Signature` (SignatureVersion 1: SHA1withRSA, 2: SHA256withRSA) over the
 * members SNS signs for its `type`, with the certificate at its `SigningCertURL`; a CallbackRefused
 * when it does not match or the certificate cannot be had.
 */
export async function checkSnsSignature(message: Record<string, unknown>, type: string, certificates: SnsCertificates, now?: number): Promise<void> {
  const signature = text(message.Signature);
  if (!signature) throw refusal(SERVICE, 'the SNS message is not signed (no Signature)');
  const version = text(message.SignatureVersion);
  const algorithm = version === '1' ? 'sha1' : version === '2' ? 'sha256' : undefined;
  if (!algorithm) throw refusal(SERVICE, 'the SNS SignatureVersion is neither 1 nor 2');
  const keys = SNS_SIGNED_KEYS[type];
  if (!keys) throw refusal(SERVICE, `the SNS message type "${type}" is not one SNS signs`);
  const certificate = await certificates.get(snsUrl(message.SigningCertURL, 'the SigningCertURL'), now);
  const signed = keys
    .filter((key) => typeof message[key] === 'string')
    .map((key) => `${key}\n${message[key] as string}\n`)
    .join('');
  let valid = false;
  try {
    valid = verify(algorithm, Buffer.from(signed, 'utf8'), certificate.publicKey, Buffer.from(signature, 'base64'));
  } catch {
    valid = false;
  }
  if (!valid) throw refusal(SERVICE, 'the SNS Signature does not match the message');
}
