import type { FieldIssue } from './errors.js';

/**
 * Most issues a refusal lists (a 422's `errors`, a validation error's message, a trigger result's
 * `error`): an input can fail a schema once per element, and a 589 KB payload once made a 9 MB answer.
 * The rest are counted, not listed.
 */
export const MAX_LISTED_ISSUES = 100;

/** Longest path, or message, of one listed issue, in characters; a longer one is cut, ending in `…`. */
export const MAX_ISSUE_TEXT = 500;

/** `text` cut to `max` characters with a trailing `…`, never between the halves of a surrogate pair. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  if (/[\uD800-\uDBFF]/.test(text[end - 1] ?? '')) end -= 1;
  return `${text.slice(0, end)}…`;
}

/** The first `MAX_LISTED_ISSUES` issues with their paths and messages cut to `MAX_ISSUE_TEXT`, and how many were left out. */
export function listedIssues(issues: readonly FieldIssue[]): { listed: FieldIssue[]; unlisted: number } {
  const listed = issues.slice(0, MAX_LISTED_ISSUES).map((issue) => ({ path: cutText(issue.path, MAX_ISSUE_TEXT), message: cutText(issue.message, MAX_ISSUE_TEXT) }));
  return { listed, unlisted: issues.length - listed.length };
}

/** The issues as one sentence (`a: is required; b: must be a number`), bounded as `listedIssues`, ending with the count of the rest. */
export function issuesText(issues: readonly FieldIssue[]): string {
  const { listed, unlisted } = listedIssues(issues);
  const text = listed.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ');
  return unlisted > 0 ? `${text}; and ${unlisted} more issues not listed` : text;
}

/**
 * Error lines (`path: message`, as a trigger result's `error` holds them) bounded the same way: at
 * most `MAX_LISTED_ISSUES` lines, each at most twice `MAX_ISSUE_TEXT` long, the last one counting the
 * lines left out when there were more.
 */
export function listedErrorLines(lines: readonly string[]): string[] {
  if (lines.length <= MAX_LISTED_ISSUES) return lines.map((line) => cutText(line, 2 * MAX_ISSUE_TEXT));
  const kept = lines.slice(0, MAX_LISTED_ISSUES - 1).map((line) => cutText(line, 2 * MAX_ISSUE_TEXT));
  return [...kept, `and ${lines.length - kept.length} more issues not listed`];
}
