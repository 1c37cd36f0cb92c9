import { createHash, createHmac, randomUUID } from 'node:crypto';
import { fakeServiceServer, type Reply, type SeenRequest } from './sms-http.js';

/** A message the fake SNS published. */
export interface SnsMessage {
  readonly messageId: string;
  readonly phoneNumber: string;
  readonly message: string;
  /** Every parameter of the Publish call. */
  readonly params: Record<string, string>;
}

const XMLNS = 'http://sns.amazonaws.com/doc/2010-03-31/';

/** The query API's error answer: `<ErrorResponse><Error><Type/><Code/><Message/></Error>`. */
export const snsError = (status: number, code: string, message: string, type: 'Sender' | 'Receiver' = 'Sender'): Reply => ({
  status,
  headers: { 'content-type': 'text/xml' },
  body: `<ErrorResponse xmlns="${XMLNS}">\n  <Error>\n    <Type>${type}</Type>\n    <Code>${code}</Code>\n    <Message>${message}</Message>\n  </Error>\n  <RequestId>${randomUUID()}</RequestId>\n</ErrorResponse>\n`,
});

const AUTHORIZATION = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/;

const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();
const sha256Hex = (data: string) => createHash('sha256').update(data, 'utf8').digest('hex');
const rfc3986 = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * The SigV4 signature of a received request, computed here from AWS's documented algorithm (not
 * with the library the provider signs with): canonical request → string to sign → HMAC chain.
 */
function sigV4(request: SeenRequest, signedHeaders: string[], amzDate: string, scope: { region: string; service: string }, secret: string): string {
  const url = new URL(request.path, 'http://placeholder');
  const query = [...url.searchParams].map(([k, v]) => [rfc3986(k), rfc3986(v)]).sort(([a, b], [c, d]) => (a! < c! ? -1 : a! > c! ? 1 : b! < d! ? -1 : 1)).map(([k, v]) => `${k}=${v}`).join('&');
  const headerValue = (name: string) => {
    const value = request.headers[name];
    return (Array.isArray(value) ? value.join(',') : (value ?? '')).trim().replace(/\s+/g, ' ');
  };
  const canonical = [request.method, url.pathname, query, ...signedHeaders.map((h) => `${h}:${headerValue(h)}`), '', signedHeaders.join(';'), sha256Hex(request.body)].join('\n');
  const date = amzDate.slice(0, 8);
  const credentialScope = `${date}/${scope.region}/${scope.service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, credentialScope, sha256Hex(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, date), scope.region), scope.service), 'aws4_request');
  return createHmac('sha256', key).update(stringToSign, 'utf8').digest('hex');
}

/**
 * Plays Amazon SNS's query API for one access key in one region: `POST /` with a form body
 * (`Action=Publish`, `Version=2010-03-31`, `PhoneNumber`, `Message`), authenticated by SigV4
 * (`Authorization: AWS4-HMAC-SHA256 Credential=<key>/<date>/<region>/sns/aws4_request,
 * SignedHeaders=…, Signature=…`), whose signature it recomputes. Answers the `PublishResponse` XML with
 * a `MessageId`, or SNS's errors: MissingAuthenticationToken, IncompleteSignature,
 * InvalidClientTokenId, SignatureDoesNotMatch, InvalidAction, InvalidParameter.
 */
export async function fakeSns(account: { accessKeyId: string; secretAccessKey: string; region: string }) {
  const messages: SnsMessage[] = [];
  const server = await fakeServiceServer((request) => {
    if (request.method !== 'POST' || new URL(request.path, 'http://placeholder').pathname !== '/') return snsError(404, 'NotFound', 'Not Found');
    const authorization = request.headers.authorization;
    if (!authorization) return snsError(403, 'MissingAuthenticationToken', 'Request is missing Authentication Token');
    const parts = AUTHORIZATION.exec(authorization);
    const amzDate = request.headers['x-amz-date'];
    if (!parts || typeof amzDate !== 'string' || !/^\d{8}T\d{6}Z$/.test(amzDate)) return snsError(400, 'IncompleteSignature', 'The request signature does not conform to AWS standards.');
    const [, keyId, date, region, service, signedHeaderList, signature] = parts as unknown as string[];
    if (keyId !== account.accessKeyId) return snsError(403, 'InvalidClientTokenId', 'The security token included in the request is invalid.');
    if (date !== amzDate.slice(0, 8)) return snsError(403, 'SignatureDoesNotMatch', 'Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP.');
    if (region !== account.region) return snsError(403, 'SignatureDoesNotMatch', `Credential should be scoped to a valid region, not '${region}'.`);
    if (service !== 'sns') return snsError(403, 'SignatureDoesNotMatch', "Credential should be scoped to correct service: 'sns'.");
    const signedHeaders = signedHeaderList!.split(';');
    if (!signedHeaders.includes('host') || !signedHeaders.includes('x-amz-date')) return snsError(403, 'SignatureDoesNotMatch', 'Host and x-amz-date must be signed.');
    if (sigV4(request, signedHeaders, amzDate, { region, service }, account.secretAccessKey) !== signature) {
      return snsError(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.');
    }
    const params = Object.fromEntries(request.form);
    if (params['Action'] !== 'Publish' || params['Version'] !== '2010-03-31') return snsError(400, 'InvalidAction', `The action ${params['Action']} is not valid for this web service.`);
    const phoneNumber = params['PhoneNumber'];
    if (!params['Message']) return snsError(400, 'InvalidParameter', 'Invalid parameter: Empty message');
    if (!phoneNumber || !/^\+[1-9]\d{6,14}$/.test(phoneNumber)) return snsError(400, 'InvalidParameter', `Invalid parameter: PhoneNumber Reason: ${phoneNumber} is not valid to publish to`);
    const message: SnsMessage = { messageId: randomUUID(), phoneNumber, message: params['Message'], params };
    messages.push(message);
    return {
      status: 200,
      headers: { 'content-type': 'text/xml' },
      body: `<PublishResponse xmlns="${XMLNS}">\n  <PublishResult>\n    <MessageId>${message.messageId}</MessageId>\n  </PublishResult>\n  <ResponseMetadata>\n    <RequestId>${randomUUID()}</RequestId>\n  </ResponseMetadata>\n</PublishResponse>\n`,
    };
  });
  return { ...server, messages };
}
