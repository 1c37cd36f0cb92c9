import { generateKeyPairSync, sign, X509Certificate, type KeyObject } from 'node:crypto';
import { der, sequence, set, utf8, oid, time, serialNumber } from './der.js';

/** A certificate and the key it certifies, to issue others with. */
export interface Issued {
  readonly pem: string;
  readonly privateKey: KeyObject;
  readonly commonName: string;
}

/**
 * An X.509 v3 certificate (RSA 2048, SHA256withRSA) for `commonName`, issued by `issuer` (self-signed
 * without one); `ca` marks it a CA (basicConstraints CA:TRUE, critical). Made with a minimal DER
 * writer, for tests of certificate chains (an SNS signing certificate under a CA of the test's own).
 */
export function issuedCertificate(commonName: string, options: { issuer?: Issued; ca?: boolean; from?: Date; to?: Date } = {}): Issued {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const algorithm = sequence(oid('1.2.840.113549.1.1.11'), Buffer.from([0x05, 0x00]));
  const name = (cn: string) => sequence(set(sequence(oid('2.5.4.3'), utf8(cn))));
  const extensions = options.ca ? [der(0xa3, sequence(sequence(oid('2.5.29.19'), der(0x01, Buffer.from([0xff])), der(0x04, sequence(der(0x01, Buffer.from([0xff])))))))] : [];
  const tbs = sequence(
    der(0xa0, der(0x02, Buffer.from([2]))),
    serialNumber(),
    algorithm,
    name(options.issuer?.commonName ?? commonName),
    sequence(time(options.from ?? new Date(Date.now() - 3_600_000)), time(options.to ?? new Date(Date.now() + 86_400_000))),
    name(commonName),
    publicKey.export({ type: 'spki', format: 'der' }),
    ...extensions,
  );
  const certificate = sequence(tbs, algorithm, der(0x03, Buffer.from([0]), sign('sha256', tbs, options.issuer?.privateKey ?? privateKey)));
  const pem = `-----BEGIN CERTIFICATE-----\n${certificate.toString('base64').match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`;
  new X509Certificate(pem);
  return { pem, privateKey, commonName };
}
