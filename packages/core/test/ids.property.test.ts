import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { newId, newTransactionId } from '../src/ids.js';

const MAX_MS = 2 ** 48 - 1;

describe('generated ids', () => {
  it('transactionIds are RFC 9562 version 7 UUIDs that carry their millisecond', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_MS }), (ms) => {
        const id = newTransactionId(new Date(ms));
        expect(z.uuid().safeParse(id).success).toBe(true);
        expect(id[14]).toBe('7');
        expect('89ab').toContain(id[19]);
        expect(Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(ms);
      }),
    );
  });

  it('transactionIds made in a later millisecond sort after earlier ones (indexes grow at their end)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_MS - 1 }), fc.integer({ min: 1, max: 10 ** 9 }), (ms, later) => {
        const a = newTransactionId(new Date(ms));
        const b = newTransactionId(new Date(Math.min(MAX_MS, ms + later)));
        expect(a < b).toBe(true);
      }),
    );
  });

  it('transactionIds do not repeat', () => {
    const at = new Date('2026-11-22T12:00:00Z');
    const ids = new Set(Array.from({ length: 50_000 }, () => newTransactionId(at)));
    expect(ids.size).toBe(50_000);
  });

  it('record ids are 24 hex characters, shaped like the Mongo ObjectIds Novu uses', () => {
    const at = new Date('2026-11-22T12:00:00Z');
    const ids = Array.from({ length: 1_000 }, () => newId(at));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{24}$/);
  });
});
