import { memoryStorage } from '@tidings/memory';
import { createTidings, type TidingsOptions, type WorkflowInput } from '../src/index.js';
import { manualClock } from '../src/testing/index.js';

/** An engine on memory storage with a manual clock, for engine tests of pure behaviour. */
export function testEngine(options: Partial<TidingsOptions> = {}, start = '2026-06-01T12:00:00.000Z') {
  const clock = manualClock(start);
  const tidings = createTidings({ storage: memoryStorage(), clock, ...options });
  return { tidings, clock };
}

export const inAppWorkflow = (identifier: string, content = 'Hi {{ subscriber.firstName }}', extra: Partial<WorkflowInput> = {}): WorkflowInput => ({
  name: identifier,
  triggers: [{ identifier }],
  steps: [{ template: { type: 'in_app', content } }],
  ...extra,
});
