import { randomBytes } from 'node:crypto';

/** DER encoding, enough to write the X.509 certificates the test services sign in memory. */

/** One DER element: tag, length (short or long form), content. */
export function der(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  const length: number[] = [];
  for (let n = body.length; n > 0; n >>= 8) length.unshift(n & 0xff);
  const header = body.length < 0x80 ? [tag, body.length] : [tag, 0x80 | length.length, ...length];
  return Buffer.concat([Buffer.from(header), body]);
}

export const sequence = (...content: Buffer[]) => der(0x30, ...content);
export const set = (...content: Buffer[]) => der(0x31, ...content);
export const utf8 = (value: string) => der(0x0c, Buffer.from(value, 'utf8'));
export const NULL = Buffer.from([0x05, 0x00]);

export function oid(dotted: string): Buffer {
  const [first, second, ...rest] = dotted.split('.').map(Number);
  const bytes = [first! * 40 + second!];
  for (const arc of rest) {
    const groups: number[] = [];
    for (let n = arc; ; n = Math.floor(n / 128)) {
      groups.unshift((n % 128) | (groups.length > 0 ? 0x80 : 0));
      if (n < 128) break;
    }
    bytes.push(...groups);
  }
  return der(0x06, Buffer.from(bytes));
}

/** UTCTime (years before 2050, as every validity here is). */
export const time = (at: Date) => der(0x17, Buffer.from(`${at.toISOString().slice(2, 19).replace(/[-T:]/g, '')}Z`));

/**
 * A random positive serial number of 8 bytes, DER-minimal: its first byte has the top bit clear
 * (positive) and is not zero (a leading zero byte before one under 0x80 is an invalid encoding,
 * which OpenSSL refuses: about one certificate in 500).
 */
export function serialNumber(): Buffer {
  const serial = randomBytes(8);
  serial[0] = (serial[0]! & 0x7f) | 0x40;
  return der(0x02, serial);
}
