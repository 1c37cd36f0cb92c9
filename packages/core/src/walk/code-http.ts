import { httpStepSchema } from '../schemas/http-step.js';
import type { JsonObject } from '../schemas/index.js';
import { buildHttpRequest, type HttpStepCall } from './http-request.js';

/** A code workflow's `http` step request: checked as a JSON step's is, but for its response schema (the framework checks the answer on replay). */
const codeHttpSchema = httpStepSchema.omit({ responseSchema: true });

/** A code workflow's `step.http` outputs as the request the walk job sends; an error names each bad field. */
export function codeHttpCall(stepId: string, stepIndex: number, outputs: JsonObject): { ok: true; call: HttpStepCall } | { ok: false; error: string } {
  const parsed = codeHttpSchema.safeParse(outputs);
  if (!parsed.success) return { ok: false, error: parsed.error.issues.map((i) => `${i.path.length > 0 ? i.path.join('.') : 'request'}: ${i.message}`).join('; ') };
  const config = parsed.data;
  return {
    ok: true,
    call: { stepIndex, stepId, resultKey: stepId, request: buildHttpRequest(config, (text) => text), continueOnFailure: config.continueOnFailure ?? false, ...(config.retries !== undefined && { retries: config.retries }) },
  };
}
