import type { Workflow } from '../schemas/index.js';
import type { Walker } from './walker.js';

/**
 * One walker over two kinds of workflow: those written in code (`isCode`) go to `code`, stored ones
 * to `stored`. The rest of the engine never asks which kind it runs.
 */
export function routerWalker(stored: Walker, code: Walker, isCode: (workflow: Workflow) => boolean): Walker {
  const pick = (workflow: Workflow) => (isCode(workflow) ? code : stored);
  return {
    walksInline: (workflow) => pick(workflow).walksInline(workflow),
    runsUserCode: (workflow) => pick(workflow).runsUserCode(workflow),
    walk: (input) => pick(input.workflow).walk(input),
    async preparePayload(workflow, payload) {
      const walker = pick(workflow);
      return walker.preparePayload ? walker.preparePayload(workflow, payload) : { ok: true, payload };
    },
    precompute: (workflow, subject, run) => pick(workflow).precompute?.(workflow, subject, run) ?? Promise.resolve(null),
    messagesToRead: (workflow, state, notificationId, subscriberInternalId) => pick(workflow).messagesToRead?.(workflow, state, notificationId, subscriberInternalId) ?? [],
  };
}
