import type { JsonObject, Workflow } from '../schemas/index.js';
import { readPath, splitPath } from '../util/path.js';

/** `root` with `value` placed at `parts` (copying the objects on the way); unchanged when a step on the way is not an object. */
function placed(root: JsonObject, parts: readonly (string | number)[], value: unknown): JsonObject {
  const [head, ...rest] = parts;
  if (typeof head !== 'string') return root;
  if (rest.length === 0) return { ...root, [head]: value };
  const inner = root[head] ?? {};
  if (typeof inner !== 'object' || inner === null || Array.isArray(inner)) return root;
  return { ...root, [head]: placed(inner as JsonObject, rest, value) };
}

/**
 * The payload with the defaults of the workflow's step variables filled in where the event leaves
 * them out (Novu's step `variables`: `{ name: 'user.lastName', defaultValue }`), and the required
 * variables it still lacks. The event's own values always win.
 */
export function withPayloadDefaults(workflow: Workflow, payload: JsonObject): { payload: JsonObject; missing: string[] } {
  let filled = payload;
  const missing: string[] = [];
  for (const step of workflow.steps) {
    if (!step.active) continue;
    for (const candidate of [step, ...step.variants.filter((v) => v.active)]) {
      for (const variable of candidate.template.variables ?? []) {
        if (readPath(filled, variable.name) !== undefined) continue;
        if (variable.defaultValue !== undefined) filled = placed(filled, splitPath(variable.name), variable.defaultValue);
        if (variable.required && readPath(filled, variable.name) === undefined && !missing.includes(variable.name)) missing.push(variable.name);
      }
    }
  }
  return { payload: filled, missing };
}
