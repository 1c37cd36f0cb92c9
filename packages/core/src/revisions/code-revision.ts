import { createHash } from 'node:crypto';
import type { CodeStepDeclaration, CodeWorkflow } from '../walk/code-workflow.js';
import { canonicalJson } from './definition.js';

/**
 * A code workflow's revision: a hash of its discovered steps (ids, types, cadences, in order) and its
 * options, so a deploy that changes what the function declares is a new revision and one that does
 * not is the same.
 */
export function codeRevision(code: CodeWorkflow, steps: readonly CodeStepDeclaration[]): string {
  const shape = {
    steps: steps.map((s) => ({ stepId: s.stepId, type: s.type, cadence: s.cadence })),
    name: code.name,
    description: code.description,
    tags: code.tags,
    severity: code.severity,
    critical: code.critical,
    preferenceSettings: code.preferenceSettings,
    ...(code.debounce && { debounce: code.debounce }),
  };
  return `code-${createHash('sha256').update(canonicalJson(shape)).digest('hex').slice(0, 12)}`;
}
