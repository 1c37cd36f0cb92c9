import type { JsonObject } from '../schemas/index.js';
import type { CodeStepType, CodeWorkflow } from '../walk/code-workflow.js';

/** One step of a scripted code workflow: its outputs (and whether to skip it) from the payload and earlier results. */
export interface ScriptedStep {
  readonly stepId: string;
  readonly type: CodeStepType;
  outputs(payload: JsonObject, results: ReadonlyMap<string, JsonObject>): JsonObject;
  skip?(results: ReadonlyMap<string, JsonObject>): boolean;
}

/**
 * A code workflow as a fixed list of steps, implementing the engine's code-workflow protocol the way
 * a replaying function does (the first step without a result runs): for core's own tests, which
 * cannot import `@tidings/framework`.
 */
export function scriptedCodeWorkflow(id: string, steps: readonly ScriptedStep[]): CodeWorkflow {
  return {
    kind: 'tidings.code-workflow',
    id,
    discover: async () => steps.map(({ stepId, type }) => ({ stepId, type })),
    preparePayload: async (payload) => ({ ok: true, payload }),
    async runNext({ payload, results }) {
      const next = steps.find((s) => !results.has(s.stepId));
      if (!next) return { kind: 'end' };
      const skipped = next.skip?.(results) ?? false;
      return { kind: 'step', stepId: next.stepId, type: next.type, skipped, outputs: skipped ? {} : next.outputs(payload, results) };
    },
  };
}
