import { describe, expect, it } from 'vitest';
import { idempotencyKeyOf } from '../src/internal.js';

const UUID_V5 = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('idempotencyKeyOf — the key every send of one message carries', () => {
  it('is a UUID, the same for the same environment and message in any process, and differs when either differs', () => {
    const key = idempotencyKeyOf('prod', '6a1d7440b982e1cfabdb651b000ada');
    expect(key).toMatch(UUID_V5);
    expect(idempotencyKeyOf('prod', '6a1d7440b982e1cfabdb651b000ada')).toBe(key);
    expect(idempotencyKeyOf('dev', '6a1d7440b982e1cfabdb651b000ada')).not.toBe(key);
    expect(idempotencyKeyOf('prod', '6a1d7440b982e1cfabdb651b001ada')).not.toBe(key);
  });

  it('a retry round (tidings.retry of a message that failed for good) has a key of its own, the same on each of its attempts', () => {
    const key = idempotencyKeyOf('prod', 'm1');
    const round = idempotencyKeyOf('prod', 'm1', 'job-7');
    expect(round).toMatch(UUID_V5);
    expect(round).not.toBe(key);
    expect(idempotencyKeyOf('prod', 'm1', 'job-7')).toBe(round);
    expect(idempotencyKeyOf('prod', 'm1', 'job-8')).not.toBe(round);
    // The parts are kept apart: no two (environment, message) pairs run together into one key.
    expect(idempotencyKeyOf('a', 'bc')).not.toBe(idempotencyKeyOf('ab', 'c'));
  });
});
