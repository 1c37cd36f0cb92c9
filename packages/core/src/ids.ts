import { randomBytes } from 'node:crypto';

// Ids look like Mongo ObjectIds (24 hex characters), as Novu's do: 4 bytes of seconds, 5 random bytes
// fixed per process, 3 bytes of counter. Sortable by creation second, unique without coordination.
const processBytes = randomBytes(5).toString('hex');
let counter = randomBytes(3).readUIntBE(0, 3);

export function newId(now: Date = new Date()): string {
  counter = (counter + 1) & 0xffffff;
  const seconds = Math.floor(now.getTime() / 1000) >>> 0;
  return seconds.toString(16).padStart(8, '0') + processBytes + counter.toString(16).padStart(6, '0');
}
