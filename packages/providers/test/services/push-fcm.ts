import { randomBytes, type KeyObject } from 'node:crypto';
import { jwtVerify } from 'jose';
import { serviceServer, type ServiceCall, type ServiceReply } from './push-and-chat-server.js';

export const GOOGLE_TOKEN_URI = 'https://oauth2.googleapis.com/token';
const SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';

export interface FcmFakeOptions {
  readonly projectId: string;
  /** The service account Google knows: its email, key id and public key. */
  readonly clientEmail: string;
  readonly keyId: string;
  readonly publicKey: KeyObject;
  /** The registration tokens FCM knows; any other is UNREGISTERED. */
  readonly registered: readonly string[];
  /** Lifetime of the access tokens it grants, in seconds. @default 3599 */
  readonly expiresIn?: number;
  /** How many first sends are over quota (429, `Retry-After: 30`). */
  readonly overQuota?: number;
}

const googleError = (code: number, status: string, message: string, fcmErrorCode?: string): ServiceReply => ({
  status: code,
  json: { error: { code, message, status, ...(fcmErrorCode && { details: [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode: fcmErrorCode }] }) } },
});

const oauthError = (error: string, description: string): ServiceReply => ({ status: 400, json: { error, error_description: description } });

/**
 * Plays Google's OAuth token endpoint (`POST /token`, the JWT-bearer grant: the assertion's RS256
 * signature is checked with the service account's public key, and its iss, aud, scope and kid) and
 * FCM HTTP v1 (`POST /v1/projects/{project}/messages:send` with a granted bearer token), answering
 * `{ name }`, or Google's error shape with an FcmError detail (UNREGISTERED for an unknown token).
 */
export async function fcmFake(options: FcmFakeOptions) {
  const granted = new Set<string>();
  const assertions: { header: Record<string, unknown>; claims: Record<string, unknown> }[] = [];
  const sent: { token: string; message: any; authorization: string | undefined }[] = [];
  let sends = 0;

  async function grant(call: ServiceCall): Promise<ServiceReply> {
    if (call.headers['content-type'] !== 'application/x-www-form-urlencoded') return oauthError('invalid_request', 'Bad Request');
    const form = new URLSearchParams(call.body);
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') return oauthError('unsupported_grant_type', 'Invalid grant_type: ' + form.get('grant_type'));
    try {
      const { payload, protectedHeader } = await jwtVerify(form.get('assertion') ?? '', options.publicKey, { algorithms: ['RS256'], issuer: options.clientEmail, audience: GOOGLE_TOKEN_URI });
      assertions.push({ header: protectedHeader, claims: payload });
      if (protectedHeader.kid !== undefined && protectedHeader.kid !== options.keyId) return oauthError('invalid_grant', 'Invalid JWT Signature.');
      if (payload.scope !== SCOPE) return oauthError('invalid_scope', 'Invalid OAuth scope or ID token audience provided.');
    } catch {
      return oauthError('invalid_grant', 'Invalid JWT Signature.');
    }
    const accessToken = `ya29.${randomBytes(24).toString('base64url')}`;
    granted.add(accessToken);
    return { status: 200, json: { access_token: accessToken, expires_in: options.expiresIn ?? 3599, token_type: 'Bearer' } };
  }

  function send(call: ServiceCall, project: string): ServiceReply {
    const bearer = call.headers.authorization?.replace(/^Bearer /, '');
    if (!bearer || !granted.has(bearer)) {
      return googleError(401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.');
    }
    if (project !== options.projectId) return googleError(403, 'PERMISSION_DENIED', `Permission 'cloudmessaging.messages.create' denied on resource '//cloudresourcemanager.googleapis.com/projects/${project}' (or it may not exist).`);
    if (++sends <= (options.overQuota ?? 0)) return { ...googleError(429, 'RESOURCE_EXHAUSTED', 'Quota exceeded.', 'QUOTA_EXCEEDED'), headers: { 'retry-after': '30' } };
    if (!call.headers['content-type']?.startsWith('application/json')) return googleError(400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.');
    const message = call.json?.message;
    if (typeof message?.token !== 'string') return googleError(400, 'INVALID_ARGUMENT', 'Recipient of the message is not set.', 'INVALID_ARGUMENT');
    const data: Record<string, unknown> = message.data ?? {};
    if (Object.values(data).some((value) => typeof value !== 'string')) return googleError(400, 'INVALID_ARGUMENT', "Invalid value at 'message.data[0].value' (TYPE_STRING)");
    sent.push({ token: message.token, message, authorization: call.headers.authorization });
    if (!options.registered.includes(message.token)) return googleError(404, 'NOT_FOUND', 'Requested entity was not found.', 'UNREGISTERED');
    return { status: 200, json: { name: `projects/${project}/messages/0:${sent.length}%${randomBytes(8).toString('hex')}` } };
  }

  const server = await serviceServer(async (call) => {
    if (call.method === 'POST' && call.path === '/token') return grant(call);
    const project = call.method === 'POST' ? /^\/v1\/projects\/([^/]+)\/messages:send$/.exec(call.path)?.[1] : undefined;
    if (project) return send(call, decodeURIComponent(project));
    return googleError(404, 'NOT_FOUND', 'Not Found');
  });
  return {
    ...server,
    assertions,
    sent,
    /** Revokes every access token granted so far. */
    revokeTokens: () => granted.clear(),
  };
}
