import type { z } from 'zod';
import { TidingsError, type FieldIssue } from './errors.js';

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
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issues = issuesOf(result.error);
  const detail = issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ');
  throw new TidingsError('validation_failed', `Invalid ${what}: ${detail}`, { issues, cause: result.error });
}
