import { createTidings, type CodeWorkflow, type Storage, type TidingsOptions, type WorkflowInput } from '@tidings/core';

/** The bulk workload's workflow: one in-app step with a template reading the subscriber and payload. */
export const BENCH_WORKFLOW: WorkflowInput = { name: 'Bench', triggers: [{ identifier: 'bench' }], steps: [{ template: { type: 'in_app', content: 'Hello {{ subscriber.firstName }}, {{ payload.n }}' } }] };

/**
 * The end-to-end bulk workload on an engine: `calls` bulk triggers of 100 events, each event to
 * `perEvent` new inline subscribers, one in_app step; time from the first call until every message is
 * stored. `engine` holds the engine's options (none: its defaults). The workflow is BENCH_WORKFLOW,
 * stored, unless `workflows` gives code workflows (one of them with the id `bench`). Returns the
 * messages stored and the seconds taken.
 */
export async function engineBulk(
  storage: Storage,
  options: { calls: number; perEvent: number; prefix: string; engine?: Partial<TidingsOptions>; workflows?: readonly CodeWorkflow[] },
): Promise<{ messages: number; seconds: number }> {
  const tidings = createTidings({ storage, ...options.engine, ...(options.workflows && { workflows: [...options.workflows] }) });
  if (!options.workflows) await tidings.workflows.upsert(BENCH_WORKFLOW);
  let n = 0;
  const started = performance.now();
  for (let call = 0; call < options.calls; call++) {
    const events = Array.from({ length: 100 }, () => {
      n++;
      return {
        name: 'bench',
        to: Array.from({ length: options.perEvent }, (_, k) => ({ subscriberId: `${options.prefix}-${n}-${k}`, firstName: `S${n}` })),
        payload: { n },
      };
    });
    await tidings.triggerBulk(events);
    await tidings.runDue();
  }
  const seconds = (performance.now() - started) / 1000;
  const messages = options.calls * 100 * options.perEvent;
  return { messages, seconds };
}
