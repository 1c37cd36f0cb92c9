import { z } from 'zod';
import { TidingsError, type FieldIssue } from './errors.js';
import { MAX_INPUT_DEPTH } from './schemas/limits.js';
import { issuesText } from './listed-issues.js';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** A cheap first look: most strings hold neither NUL nor any surrogate, and are done after it. */
const SUSPECT = /[\u0000\uD800-\uDFFF]/;

function textProblem(text: string): string | null {
  if (!SUSPECT.test(text)) return null;
  if (text.includes('\u0000')) return 'must not contain NUL characters (\\u0000)';
  if (LONE_SURROGATE.test(text)) return 'must be valid Unicode (it holds an unpaired surrogate)';
  return null;
}

/** A place in the input, as a list from the leaf up: built only when an issue needs its path. */
type Place = { readonly key: PropertyKey; readonly parent: Place } | null;

function pathOf(place: Place): PropertyKey[] {
  const path: PropertyKey[] = [];
  for (let p = place; p; p = p.parent) path.push(p.key);
  return path.reverse();
}

/**
 * What no backend can store, found before any schema runs: objects and arrays nested deeper than
 * MAX_INPUT_DEPTH (recursion over them would overflow the stack), and strings or keys with NUL
 * characters or unpaired surrogates (Postgres refuses both in JSON and text). Walks iteratively, so
 * any depth of input is safe to check. Returns at most 20 issues.
 */
export function inputHazards(input: unknown): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const at = (place: Place) => formatPath(pathOf(place));
  // Strings are checked where they are met; only objects and arrays wait on the stack, and a place
  // is made only for them or for an issue.
  const stack: { value: object; place: Place; depth: number }[] = [];
  const visit = (value: unknown, parent: Place, key: PropertyKey | null, depth: number) => {
    if (typeof value === 'string') {
      const problem = textProblem(value);
      if (problem) issues.push({ path: at(key === null ? parent : { key, parent }), message: problem });
    } else if (typeof value === 'object' && value !== null) {
      const place = key === null ? parent : { key, parent };
      if (depth >= MAX_INPUT_DEPTH) issues.push({ path: at(place), message: `is nested more than ${MAX_INPUT_DEPTH} levels deep` });
      else stack.push({ value, place, depth });
    }
  };
  visit(input, null, null, 0);
  while (stack.length > 0 && issues.length < 20) {
    const { value, place, depth } = stack.pop()!;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) visit(value[i], place, i, depth + 1);
      continue;
    }
    const keys = Object.keys(value);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const problem = textProblem(key);
      if (problem) issues.push({ path: at({ key, parent: place }), message: `(the key) ${problem}` });
      visit((value as Record<string, unknown>)[key], place, key, depth + 1);
    }
  }
  return issues.slice(0, 20);
}

export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}
/**
 * Hints for members a schema does not know, by where they were met: the path with every index written
 * `[]` (`steps[].template.metadata`). The message says what was probably meant.
 */
export type MemberHints = Readonly<Record<string, string>>;

/** What zod says of a failed union that names no message of its own. */
const ZOD_UNION_MESSAGE = 'Invalid input';

/** Of the wrong kind: refused as a whole by its type, or by a union none of whose branches was of its kind. */
const wrongKind = (issues: readonly z.core.$ZodIssue[]): boolean =>
  issues.some((i) => i.path.length === 0 && (i.code === 'invalid_type' || (i.code === 'invalid_union' && i.errors.length > 0 && i.errors.every(wrongKind))));

/**
 * Of the ways a value failed a union, the one its author most likely meant: not one whose very kind
 * is wrong (an object is no string, whatever else ails it), then the fewest issues, and of those, one
 * that does not fail on `type` (a value without `type` meant the member that needs none).
 */
function likeliestBranch(union: z.core.$ZodIssueInvalidUnion): readonly z.core.$ZodIssue[] | null {
  const branches = union.errors;
  // A value of no kind the union takes is told what the union takes, when it says so itself.
  if (branches.length > 0 && branches.every(wrongKind) && union.message !== ZOD_UNION_MESSAGE) return null;
  const cost = (issues: readonly z.core.$ZodIssue[]) =>
    issues.length + (issues.some((i) => i.path.length === 1 && i.path[0] === 'type') ? 0.5 : 0) + (wrongKind(issues) ? 1_000 : 0);
  const ranked = branches.filter((b) => b.length > 0).sort((a, b) => cost(a) - cost(b));
  return ranked[0] ?? null;
}

/**
 * The issues of a failed parse, one per field. A member the schema does not know is an issue of its
 * own, named by its full path, with a hint when one fits.
 */
export function issuesOf(error: z.ZodError, prefix = '', hints: MemberHints = {}): FieldIssue[] {
  const join = (path: string) => (prefix && path ? (path.startsWith('[') ? prefix + path : `${prefix}.${path}`) : prefix || path);
  return error.issues.flatMap((issue) => {
    const meant = issue.code === 'invalid_union' ? likeliestBranch(issue) : null;
    if (meant) return issuesOf(new z.ZodError(meant.map((i) => ({ ...i, path: [...issue.path, ...i.path] }))), prefix, hints);
    // A record's key that its key schema refused: zod says only "Invalid key"; the key schema says why.
    if (issue.code === 'invalid_key') return issue.issues.map((inner) => ({ path: join(formatPath(issue.path)), message: inner.message }));
    if (issue.code !== 'unrecognized_keys') return [{ path: join(formatPath(issue.path)), message: issue.message }];
    return issue.keys.map((key) => {
      const at = [...issue.path, key];
      const where = formatPath(at.map((part) => (typeof part === 'number' ? '[]' : part))).replace(/\.\[\]/g, '[]');
      const hint = Object.hasOwn(hints, where) ? hints[where] : undefined;
      return { path: join(formatPath(at)), message: `is not a known member${hint ? `: ${hint}` : ''}` };
    });
  });
}

/**
 * Parses `input` with `schema` or throws a `validation_failed` TidingsError naming every bad field
 * (members the schema does not know included, with `hints` where one fits).
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, what: string, hints: MemberHints = {}): z.output<S> {
  const hazards = inputHazards(input);
  const result = hazards.length > 0 ? null : schema.safeParse(input);
  if (result?.success) return result.data;
  const issues = result ? issuesOf(result.error, '', hints) : hazards;
  throw new TidingsError('validation_failed', `Invalid ${what}: ${issuesText(issues)}`, { issues, ...(result && { cause: result.error }) });
}
