import type { z } from 'zod';
import { TidingsError, type FieldIssue } from './errors.js';
import { MAX_INPUT_DEPTH } from './schemas/limits.js';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function textProblem(text: string): string | null {
  if (text.includes('\u0000')) return 'must not contain NUL characters (\\u0000)';
  if (LONE_SURROGATE.test(text)) return 'must be valid Unicode (it holds an unpaired surrogate)';
  return null;
}

/**
 * What no backend can store, found before any schema runs: objects and arrays nested deeper than
 * MAX_INPUT_DEPTH (recursion over them would overflow the stack), and strings or keys with NUL
 * characters or unpaired surrogates (Postgres refuses both in JSON and text). Walks iteratively, so
 * any depth of input is safe to check. Returns at most 20 issues.
 */
export function inputHazards(input: unknown, prefix = ''): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const stack: { value: unknown; path: PropertyKey[]; depth: number }[] = [{ value: input, path: [], depth: 0 }];
  const at = (path: readonly PropertyKey[]) => {
    const own = formatPath(path);
    return prefix && own ? (own.startsWith('[') ? prefix + own : `${prefix}.${own}`) : prefix || own;
  };
  while (stack.length > 0 && issues.length < 20) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === 'string') {
      const problem = textProblem(value);
      if (problem) issues.push({ path: at(path), message: problem });
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= MAX_INPUT_DEPTH) {
      issues.push({ path: at(path), message: `is nested more than ${MAX_INPUT_DEPTH} levels deep` });
      continue;
    }
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], path: [...path, i], depth: depth + 1 });
      continue;
    }
    for (const key of Object.keys(value).reverse()) {
      const problem = textProblem(key);
      if (problem) issues.push({ path: at([...path, key]), message: `(the key) ${problem}` });
      stack.push({ value: (value as Record<string, unknown>)[key], path: [...path, key], depth: depth + 1 });
    }
  }
  return issues;
}

export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

export function issuesOf(error: z.ZodError, prefix = ''): FieldIssue[] {
  return error.issues.map((issue) => {
    const path = formatPath(issue.path);
    const full = prefix && path ? (path.startsWith('[') ? prefix + path : `${prefix}.${path}`) : prefix || path;
    return { path: full, message: issue.message };
  });
}

/** Parses `input` with `schema` or throws a `validation_failed` TidingsError naming every bad field. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, what: string): z.output<S> {
  const hazards = inputHazards(input);
  const result = hazards.length > 0 ? null : schema.safeParse(input);
  if (result?.success) return result.data;
  const issues = result ? issuesOf(result.error) : hazards;
  const detail = issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ');
  throw new TidingsError('validation_failed', `Invalid ${what}: ${detail}`, { issues, ...(result && { cause: result.error }) });
}
