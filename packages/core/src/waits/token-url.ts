import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** A token's id: the same wait stored again makes the same token. */
export const tokenIdOf = (env: string, waitId: string) => `tok_${createHash('sha256').update(`${env}\u0001${waitId}`).digest('base64url').slice(0, 24)}`;

const mac = (secret: string, tokenId: string) => createHmac('sha256', secret).update(`tidings-token.1.${tokenId}`).digest('base64url').slice(0, 27);

/** The signed completion URL of a token: a `POST` to it completes the token (once). Relative when no `baseUrl` is set. */
export const tokenUrl = (baseUrl: string | undefined, secret: string, tokenId: string) =>
  `${(baseUrl ?? '').replace(/\/+$/, '')}/v1/tokens/${encodeURIComponent(tokenId)}/complete?sig=${mac(secret, tokenId)}`;

/** Whether `sig` signs the token with one of the environment's secrets. */
export function tokenSignatureOk(secrets: readonly string[], tokenId: string, sig: string): boolean {
  const given = Buffer.from(sig);
  return secrets.some((secret) => {
    const expected = Buffer.from(mac(secret, tokenId));
    return expected.length === given.length && timingSafeEqual(expected, given);
  });
}
