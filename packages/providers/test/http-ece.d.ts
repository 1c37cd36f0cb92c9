/** The part of `http_ece` (RFC 8188 encrypted content encoding) the Web Push fake decrypts with. */
declare module 'http_ece' {
  import type { ECDH } from 'node:crypto';
  interface DecryptParams {
    readonly version: 'aes128gcm';
    readonly privateKey: ECDH;
    readonly authSecret: string;
  }
  const ece: { decrypt(buffer: Buffer, params: DecryptParams): Buffer };
  export default ece;
}
