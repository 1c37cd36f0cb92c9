import type { JsonObject, RanStep, WalkState } from '../schemas/index.js';
import { waitMetadataSchema, type WaitMetadata } from '../schemas/wait.js';

/** Where a walk stopped to wait, and for what (`metadata` parsed: durations in milliseconds). */
export interface WalkWait {
  readonly stepIndex: number;
  readonly stepId: string;
  readonly spec: WaitMetadata;
}

/** What a wait step gives the steps after it (`steps.<id>.*`, a code step's result). */
export type WaitResult =
  | { readonly matched: true; readonly event: { readonly name: string; readonly data: JsonObject; readonly at: string } }
  | { readonly matched: false }
  | ({ readonly matched: true; readonly output: JsonObject } & TokenRef)
  | ({ readonly matched: false } & TokenRef);

/** A token wait's result names its token, also as `id` and `url` (`steps.<id>.url`). */
type TokenRef = { readonly token: { readonly id: string; readonly url: string }; readonly id: string; readonly url: string };

/** A wait step's spec from its metadata or a code step's outputs, or why it is refused (naming the field). */
export function waitSpecOf(value: unknown): { ok: true; spec: WaitMetadata } | { ok: false; error: string } {
  const parsed = waitMetadataSchema.safeParse(value);
  if (parsed.success) return { ok: true, spec: parsed.data };
  const issue = parsed.error.issues[0]!;
  return { ok: false, error: `wait: ${issue.path.length > 0 ? `${issue.path.join('.')}: ` : ''}${issue.message}` };
}

/** The walk's state with the wait step's result kept, for the walk that goes on after it. */
export function stateAfterWait(state: WalkState | undefined, step: { stepId: string; stepIndex: number }, result: WaitResult): WalkState {
  const ran: RanStep = { stepId: step.stepId, stepIndex: step.stepIndex, type: 'wait', skipped: false, result: result as unknown as JsonObject };
  return { ...state, steps: [...(state?.steps ?? []).filter((s) => s.stepId !== step.stepId), ran] };
}

/** A data workflow's walk keeps the state it was given (the results of its wait steps) for the walk after it. */
export const withInputState = <R extends { readonly state?: WalkState }>(result: R, input: { readonly state?: WalkState | undefined }): R =>
  input.state && !result.state ? { ...result, state: input.state } : result;
