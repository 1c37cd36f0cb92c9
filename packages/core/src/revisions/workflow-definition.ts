import type { Workflow } from '../schemas/index.js';

/** Members that say when and where a workflow was saved, not what it does: a change of them alone is no revision. */
const BOOKKEEPING = new Set(['createdAt', 'updatedAt', 'revision', '_organizationId', '_environmentId']);

/** The workflow without its bookkeeping members: what a revision compares and a diff reads. */
export function definitionOf(workflow: Workflow): Record<string, unknown> {
  return Object.fromEntries(Object.entries(workflow).filter(([key, value]) => !BOOKKEEPING.has(key) && value !== undefined));
}

/** JSON with object members in byte order and undefined members left out: equal values give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const members = Object.keys(value)
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Whether two workflows define the same thing (their bookkeeping aside). */
export const sameDefinition = (a: Workflow, b: Workflow): boolean => canonicalJson(definitionOf(a)) === canonicalJson(definitionOf(b));
