import { generateKeyPairSync, sign, X509Certificate, type KeyObject } from 'node:crypto';
import { der, sequence, set, utf8, NULL, oid, time, serialNumber } from './der.js';

/**
 * A self-signed X.509 v3 certificate (RSA 2048, SHA256withRSA) for `commonName`, made in memory
 * with a minimal DER writer: what an SNS signing certificate is, for tests. Node parses it with
 * `X509Certificate`, so it is checked before it is handed out.
 */
export function selfSignedCertificate(commonName: string, validity: { from?: Date; to?: Date } = {}): { pem: string; privateKey: KeyObject } {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const algorithm = sequence(oid('1.2.840.113549.1.1.11'), NULL);
  const name = sequence(set(sequence(oid('2.5.4.3'), utf8(commonName))));
  const from = validity.from ?? new Date(Date.now() - 3_600_000);
  const to = validity.to ?? new Date(Date.now() + 86_400_000);
  const tbs = sequence(
    der(0xa0, der(0x02, Buffer.from([2]))),
    serialNumber(),
    algorithm,
    name,
    sequence(time(from), time(to)),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
  );
  const certificate = sequence(tbs, algorithm, der(0x03, Buffer.from([0]), sign('sha256', tbs, privateKey)));
  const pem = `-----BEGIN CERTIFICATE-----\n${certificate.toString('base64').match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`;
  if (!new X509Certificate(pem).verify(publicKey)) throw new Error('the self-signed certificate does not verify');
  return { pem, privateKey };
}
