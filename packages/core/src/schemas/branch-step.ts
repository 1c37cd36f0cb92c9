import { z } from 'zod';
import { filterSchema } from './filter.js';

/** A step of the same workflow, by its `_id`. */
const stepRefSchema = z.string().trim().min(1, 'must name a step by its _id');
const stepRefsSchema = z.array(stepRefSchema).max(100, 'must name at most 100 steps');

/**
 * A `branch` step: the first branch whose `conditions` pass (the filter language, as a step's
 * `filters`) chooses its `steps`; none passing, `default` does. The branches' other steps are
 * skipped. `exit` ends the run after the chosen steps; without it the run goes on after them.
 */
export const branchStepSchema = z.strictObject({
  branches: z
    .array(
      z.strictObject({
        name: z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters').optional(),
        conditions: z.array(filterSchema).min(1, 'must hold at least one filter group'),
        steps: stepRefsSchema,
      }),
    )
    .min(1, 'must hold at least one branch')
    .max(20, 'must hold at most 20 branches'),
  default: stepRefsSchema.default([]),
  /** @default false */
  exit: z.boolean().default(false),
});
export type BranchStepConfig = z.infer<typeof branchStepSchema>;
