import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isTidingsError } from '../src/index.js';
import { cutText, listedIssues, MAX_ISSUE_TEXT, MAX_LISTED_ISSUES, parseInput } from '../src/internal.js';

describe('validation errors list a bounded number of issues', () => {
  it('parseInput: every issue stays on the error, its message lists 100 and counts the rest', () => {
    let error: unknown;
    try {
      parseInput(z.object({ items: z.array(z.number()) }), { items: Array.from({ length: 50_000 }, () => 'x') }, 'payload');
    } catch (e) {
      error = e;
    }
    if (!isTidingsError(error, 'validation_failed')) throw new Error('expected a validation_failed error');
    expect(error.issues).toHaveLength(50_000);
    expect(error.message).toMatch(/^Invalid payload: items\[0\]: .*; and 49900 more issues not listed$/);
    expect(error.message.length).toBeLessThan(MAX_LISTED_ISSUES * 2 * MAX_ISSUE_TEXT);
    expect(error.message.split('; ')).toHaveLength(MAX_LISTED_ISSUES + 1);
  });

  it('listedIssues cuts long paths and messages, never inside a surrogate pair', () => {
    const long = `${'a'.repeat(MAX_ISSUE_TEXT - 2)}😀😀`;
    const { listed, unlisted } = listedIssues([{ path: long, message: 'm'.repeat(10_000) }]);
    expect(unlisted).toBe(0);
    expect(listed[0]!.path.length).toBeLessThanOrEqual(MAX_ISSUE_TEXT);
    expect(listed[0]!.path).toBe(`${'a'.repeat(MAX_ISSUE_TEXT - 2)}…`);
    expect(listed[0]!.message).toHaveLength(MAX_ISSUE_TEXT);
    expect(cutText('short', 10)).toBe('short');
  });
});
