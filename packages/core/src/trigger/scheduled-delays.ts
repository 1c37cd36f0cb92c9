import type { DelayMetadata, Workflow } from '../schemas/index.js';
import { delayDueAt } from '../timing/delay-due-at.js';

/**
 * Errors of the scheduled delays an event will reach before any digest: each active delay step (or
 * active variant) whose `delayPath` does not hold an ISO 8601 date in the payload. Decided at trigger
 * time, where the payload is known; delays after a digest are checked when the walk reaches them.
 */
export function scheduledDelayErrors(workflow: Workflow, payload: Record<string, unknown>, now: Date): string[] {
  const errors: string[] = [];
  for (const step of workflow.steps) {
    if (!step.active) continue;
    if (step.template.type === 'digest') break;
    for (const candidate of [step, ...step.variants.filter((v) => v.active)]) {
      const metadata = candidate.metadata as DelayMetadata | undefined;
      if (candidate.template.type !== 'delay' || metadata?.type !== 'scheduled') continue;
      const due = delayDueAt(metadata, now, { payload });
      if (!due.ok && !errors.includes(due.error)) errors.push(due.error);
    }
  }
  return errors;
}
