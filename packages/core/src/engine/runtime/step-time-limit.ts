import type { CodeWorkflow } from '../../walk/code-workflow.js';

/** The user's code did not settle within the engine's `stepTimeoutMs`. */
export class StepTimedOut extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StepTimedOut';
  }
}

/** Settles as `work` does, or rejects with StepTimedOut after `ms` (the work goes on, unheard: a promise cannot be cancelled). */
export function within<T>(ms: number, message: string, work: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StepTimedOut(message)), ms);
  });
  return Promise.race([work(), limit]).finally(() => clearTimeout(timer));
}

/**
 * The code workflow with its user code under a time limit: a run up to the next step (resolvers,
 * custom steps) that takes longer than `ms` rejects with StepTimedOut, so the job is retried and at
 * last gives up, instead of holding its batch for ever; a payload check that does not settle refuses
 * its trigger.
 */
export function withStepTimeLimit(code: CodeWorkflow, ms: number): CodeWorkflow {
  const limited: Pick<CodeWorkflow, 'runNext' | 'preparePayload'> = {
    runNext: (input) => within(ms, `the code of workflow "${code.id}" did not reach its next step within ${ms} ms (stepTimeoutMs)`, () => code.runNext(input)),
    async preparePayload(payload) {
      try {
        return await within(ms, '', () => code.preparePayload(payload));
      } catch (error) {
        if (!(error instanceof StepTimedOut)) throw error;
        return { ok: false, errors: [`payload: the workflow's payload check did not finish within ${ms} ms (stepTimeoutMs)`] };
      }
    },
  };
  return Object.assign(Object.create(code) as CodeWorkflow, limited);
}
