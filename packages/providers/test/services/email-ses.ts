import { randomBytes, randomUUID } from 'node:crypto';
import { AwsV4Signer } from 'aws4fetch';
import { simpleParser, type ParsedMail } from 'mailparser';
import { fakeService, isBase64, isEmail, mailboxAddress, type ReceivedFile, type ServiceCall, type ServiceReply } from './email-fake-server.js';

/** A mail SES accepted, as its v2 `SendEmail` body described it. */
export interface SesMail {
  readonly MessageId: string;
  readonly FromEmailAddress: string;
  readonly Destination: { ToAddresses: string[]; CcAddresses?: string[]; BccAddresses?: string[] };
  readonly Content: { Simple?: { Subject: { Data: string; Charset?: string }; Body: { Text?: { Data: string }; Html?: { Data: string } } }; Raw?: { Data: string } };
  /** `Content.Raw`'s MIME message, parsed; absent for a `Simple` one. */
  readonly raw?: ParsedMail;
  /** The raw message's attachments. */
  readonly files: ReceivedFile[];
  readonly [field: string]: unknown;
}

const badRequest = (message: string) => awsError(400, 'BadRequestException', message);

/** `Content.Raw.Data`: a base64 MIME message with a From header and a Subject, parsed; a string is the refusal's message. */
async function readRaw(data: unknown): Promise<ParsedMail | string> {
  if (!isBase64(data) || data === '') return 'Content.Raw.Data must be a base64-encoded MIME message.';
  const mail = await simpleParser(Buffer.from(data, 'base64'));
  if (!mail.from?.value[0]?.address) return 'The raw message has no From header.';
  if (mail.subject === undefined) return 'The raw message has no Subject header.';
  return mail;
}

const filesOf = (mail: ParsedMail): ReceivedFile[] => mail.attachments.map((file) => ({ filename: file.filename ?? '', contentType: file.contentType, content: file.content, ...(file.cid !== undefined && { cid: file.cid }) }));

/** An AWS REST-JSON error: the type in `x-amzn-ErrorType`, the text in the body's `message`. */
export const awsError = (status: number, type: string, message: string): ServiceReply => ({
  status,
  headers: { 'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazonaws.sesv2/`, 'x-amzn-requestid': randomUUID() },
  body: { message },
});

const SIGV4 = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/;

/**
 * Checks the request's SigV4 signature as AWS does: the credential scope (known key, this region,
 * service `ses`), `host` and `x-amz-date` among the signed headers, and the signature recomputed
 * from what arrived (method, host, path, signed headers, body) with the account's secret.
 */
async function refusedSignature(call: ServiceCall, account: { region: string; accessKeyId: string; secretAccessKey: string }): Promise<ServiceReply | null> {
  const auth = call.headers.authorization;
  if (!auth) return awsError(403, 'MissingAuthenticationTokenException', 'Missing Authentication Token');
  const scope = SIGV4.exec(auth);
  if (!scope) return awsError(403, 'IncompleteSignatureException', 'Authorization header requires Credential, SignedHeaders and Signature.');
  const [, keyId, date, region, service, signedHeaders] = scope as unknown as [string, string, string, string, string, string];
  if (keyId !== account.accessKeyId) return awsError(403, 'InvalidClientTokenId', 'The security token included in the request is invalid.');
  if (region !== account.region || service !== 'ses') return awsError(403, 'SignatureDoesNotMatch', `Credential should be scoped to a valid region and to service 'ses'.`);
  const names = signedHeaders.split(';');
  const amzDate = call.headers['x-amz-date'];
  if (!names.includes('host') || !names.includes('x-amz-date') || typeof amzDate !== 'string' || !amzDate.startsWith(date)) {
    return awsError(403, 'IncompleteSignatureException', 'The host and x-amz-date headers must be signed, and the date must match the credential scope.');
  }
  const expected = await new AwsV4Signer({
    method: call.method,
    url: `http://${call.headers.host}${call.path}`,
    headers: names.filter((name) => name !== 'host').map((name) => [name, String(call.headers[name] ?? '')] as [string, string]),
    body: call.body,
    accessKeyId: keyId,
    secretAccessKey: account.secretAccessKey,
    service: 'ses',
    region,
    datetime: amzDate,
  }).sign();
  if (expected.headers.get('authorization') !== auth) {
    return awsError(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.');
  }
  return null;
}

/**
 * Plays SES v2 `POST /v2/email/outbound-emails` in one region: SigV4-signed requests only, a JSON
 * `SendEmail` body with `Content.Simple` or `Content.Raw` (a base64 MIME message, parsed with
 * mailparser), a verified sender identity (an address or its domain; else 400
 * `MessageRejected`), `{ MessageId }` on success.
 */
export async function fakeSes(account: { region: string; accessKeyId: string; secretAccessKey: string; verifiedIdentities: string[] }) {
  const accepted: SesMail[] = [];
  const service = await fakeService(async (call) => {
    if (call.method !== 'POST' || call.path !== '/v2/email/outbound-emails') return awsError(404, 'NotFoundException', 'Not found');
    const refusal = await refusedSignature(call, account);
    if (refusal) return refusal;
    if (!call.headers['content-type']?.startsWith('application/json')) return awsError(400, 'BadRequestException', 'Unsupported content type.');
    let mail: SesMail;
    try {
      mail = JSON.parse(call.body) as SesMail;
    } catch {
      return awsError(400, 'BadRequestException', 'Invalid JSON.');
    }
    const to = mail.Destination?.ToAddresses;
    if (!Array.isArray(to) || to.length === 0 || !to.every(isEmail)) return badRequest('Missing final @domain');
    let raw: ParsedMail | undefined;
    if (mail.Content?.Raw !== undefined) {
      if (mail.Content.Simple !== undefined) return badRequest('Content must hold exactly one of Simple, Raw or Template.');
      const parsed = await readRaw(mail.Content.Raw.Data);
      if (typeof parsed === 'string') return badRequest(parsed);
      raw = parsed;
    } else {
      const simple = mail.Content?.Simple;
      if (typeof simple?.Subject?.Data !== 'string' || (!simple.Body?.Text?.Data && !simple.Body?.Html?.Data)) return badRequest('Content is incomplete.');
    }
    // A raw message without FromEmailAddress is sent from its From header.
    const from = mailboxAddress(mail.FromEmailAddress ?? raw?.from?.value[0]?.address);
    if (!from) return badRequest('Missing final @domain');
    if (!account.verifiedIdentities.includes(from) && !account.verifiedIdentities.includes(from.split('@')[1]!)) {
      return awsError(400, 'MessageRejected', `Email address is not verified. The following identities failed the check in region ${account.region.toUpperCase()}: ${from}`);
    }
    const MessageId = `0100${randomBytes(6).toString('hex')}-${randomUUID()}-000000`;
    accepted.push({ ...mail, MessageId, ...(raw && { raw }), files: raw ? filesOf(raw) : [] });
    return { status: 200, body: { MessageId } };
  });
  return { ...service, accepted };
}
