import { canonicalJson, definitionOf } from './definition.js';

/**
 * One difference between two revisions. `path` names the member: `name`, `preferenceSettings.email`,
 * `entries.welcome.title`, or a workflow step's (`steps[<step id>].template.content`), or the step
 * itself (`steps[<step id>]`) when it was added, removed or moved.
 */
export interface RevisionChange {
  readonly path: string;
  readonly change: 'added' | 'removed' | 'changed' | 'moved';
  readonly before?: unknown;
  readonly after?: unknown;
  /** For a step's change: where it is (1-based, in the workflow after the change; before it when removed), its type and id. */
  readonly step?: { readonly position: number; readonly type: string; readonly id: string };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The leaves that differ between two JSON values, objects compared member by member, anything else whole. */
export function leafChanges(before: unknown, after: unknown, path: string, out: RevisionChange[], step?: RevisionChange['step']): void {
  if (canonicalJson(before) === canonicalJson(after)) return;
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    for (const key of keys) leafChanges(before[key], after[key], path ? `${path}.${key}` : key, out, step);
    return;
  }
  const where = step ? { step } : {};
  if (before === undefined) out.push({ path, change: 'added', after, ...where });
  else if (after === undefined) out.push({ path, change: 'removed', before, ...where });
  else out.push({ path, change: 'changed', before, after, ...where });
}

/** What changed from `before` to `after`, member by member, their bookkeeping members aside. Pure. */
export function diffMembers(before: object, after: object, bookkeeping: ReadonlySet<string>): RevisionChange[] {
  const out: RevisionChange[] = [];
  leafChanges(definitionOf(before, bookkeeping), definitionOf(after, bookkeeping), '', out);
  return out;
}

/** A value as a diff line shows it: JSON, cut to 80 characters. */
function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

/** Lines of a text a hunk shows at most, and how long each may be. */
const HUNK_LINES = 12;
const HUNK_WIDTH = 100;

/**
 * A change of one text of several lines as a hunk: the lines between those both sides share at their
 * start and end, removed ones `-`, added ones `+`. Linear in the texts' length, whatever they hold.
 */
function textHunk(subject: string, before: string, after: string): string[] {
  const a = before.split('\n');
  const b = after.split('\n');
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let end = 0;
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end++;
  const lines = [...a.slice(start, a.length - end).map((l) => `- ${l}`), ...b.slice(start, b.length - end).map((l) => `+ ${l}`)];
  const cut = (line: string) => (line.length > HUNK_WIDTH ? `${line.slice(0, HUNK_WIDTH - 1)}…` : line);
  const more = lines.length - HUNK_LINES;
  return [`~ ${subject}: from line ${start + 1}`, ...lines.slice(0, more > 0 ? HUNK_LINES : lines.length).map((l) => `    ${cut(l)}`), ...(more > 0 ? [`    … ${more} more line${more === 1 ? '' : 's'}`] : [])];
}

/**
 * Lines for people, as a terminal or a review shows them: `+` added, `-` removed, `~` changed or
 * moved; a text of several lines changed shows the lines that changed, indented below. Pure.
 */
export function diffLines(changes: readonly RevisionChange[]): string[] {
  return changes.flatMap((c) => {
    const step = c.step ? `step ${c.step.position} (${c.step.type} "${c.step.id}")` : '';
    const member = c.step ? c.path.slice(`steps[${c.step.id}]`.length).replace(/^\./, '') : c.path;
    const subject = [step, member].filter(Boolean).join(' ');
    if (c.change === 'moved') return [`~ ${subject}: moved from position ${String(c.before)}`];
    if (c.step && member === '') return [c.change === 'added' ? `+ ${subject}: added` : `- ${subject}: removed`];
    if (c.change === 'added') return [`+ ${subject}: ${shown(c.after)}`];
    if (c.change === 'removed') return [`- ${subject}: was ${shown(c.before)}`];
    if (typeof c.before === 'string' && typeof c.after === 'string' && (c.before.includes('\n') || c.after.includes('\n'))) return textHunk(subject, c.before, c.after);
    return [`~ ${subject}: ${shown(c.before)} → ${shown(c.after)}`];
  });
}
