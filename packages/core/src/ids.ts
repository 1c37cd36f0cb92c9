import { randomBytes, randomFillSync } from 'node:crypto';

// Ids look like Mongo ObjectIds (24 hex characters), as Novu's do: 4 bytes of seconds, 5 random bytes
// fixed per process, 3 bytes of counter. Sortable by creation second, unique without coordination.
const processBytes = randomBytes(5).toString('hex');
let counter = randomBytes(3).readUIntBE(0, 3);

export function newId(now: Date = new Date()): string {
  counter = (counter + 1) & 0xffffff;
  const seconds = Math.floor(now.getTime() / 1000) >>> 0;
  return seconds.toString(16).padStart(8, '0') + processBytes + counter.toString(16).padStart(6, '0');
}

const pool = new Uint8Array(4096);
let poolAt = pool.length;
const hex = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/**
 * A generated transactionId: a UUID version 7 (RFC 9562), 48 bits of milliseconds then random bits.
 * Still an opaque UUID to Novu's clients, but ids made close in time sort close together, so the
 * indexes on transaction ids grow at their end instead of touching a random page per insert (on
 * SQLite, random v4 ids made commits three times slower).
 */
export function newTransactionId(now: Date = new Date()): string {
  if (poolAt + 10 > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const ms = now.getTime();
  const high = Math.floor(ms / 0x10000);
  const r = pool;
  const i = poolAt;
  poolAt += 10;
  const time = high.toString(16).padStart(8, '0') + (ms & 0xffff).toString(16).padStart(4, '0');
  return `${time.slice(0, 8)}-${time.slice(8)}-7${hex[r[i]!]!.slice(1)}${hex[r[i + 1]!]}-${hex[(r[i + 2]! & 0x3f) | 0x80]}${hex[r[i + 3]!]}-${hex[r[i + 4]!]}${hex[r[i + 5]!]}${hex[r[i + 6]!]}${hex[r[i + 7]!]}${hex[r[i + 8]!]}${hex[r[i + 9]!]}`;
}
