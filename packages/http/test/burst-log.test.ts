import { afterEach, describe, expect, it, vi } from 'vitest';
import { oncePerBurst } from '../src/burst-log.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('oncePerBurst', () => {
  it('logs the first failure of a burst, counts the rest, and sums them up once it is quiet', () => {
    vi.useFakeTimers();
    const lines: string[] = [];
    const report = oncePerBurst('[live]', (line) => lines.push(line));
    for (let i = 0; i < 20_000; i++) report(new Error('pool exhausted'));
    expect(lines).toEqual(['[live] pool exhausted']);
    vi.advanceTimersByTime(5_000);
    expect(lines).toEqual(['[live] pool exhausted', '[live] 19999 more failures of the same burst']);
    report('later');
    expect(lines.at(-1)).toBe('[live] later');
  });

  it('a burst that never pauses is summed up every minute, so an outage stays visible', () => {
    vi.useFakeTimers();
    const lines: string[] = [];
    const report = oncePerBurst('[live]', (line) => lines.push(line));
    for (let second = 0; second <= 61; second++) {
      report(new Error('down'));
      vi.advanceTimersByTime(1_000);
    }
    expect(lines).toEqual(['[live] down', '[live] 60 more failures of the same burst', '[live] down']);
  });
});
