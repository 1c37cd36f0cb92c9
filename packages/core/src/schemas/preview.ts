import { z } from 'zod';
import { jsonObjectSchema } from './enums.js';
import { subscriberInputSchema } from './subscriber.js';

/** What `tidings.preview` renders: a workflow's steps for one subscriber and payload, nothing stored. */
export const previewInputSchema = z
  .strictObject({
    /** The workflow's id, trigger identifier or slug. */
    workflowId: z.string().min(1, 'must not be empty'),
    /** Only this step (its id, or its index as a string). */
    stepId: z.string().min(1, 'must not be empty').optional(),
    /** A stored subscriber, by id. */
    subscriberId: z.string().min(1, 'must not be empty').optional(),
    /** A subscriber as given (not stored), e.g. sample data. */
    subscriber: subscriberInputSchema.optional(),
    payload: jsonObjectSchema.default({}),
    /** Renders in this locale instead of the subscriber's. */
    locale: z.string().min(1, 'must not be empty').optional(),
    /** A tenant's identifier: its data and brand. */
    tenant: z.string().min(1, 'must not be empty').optional(),
  })
  .superRefine((input, ctx) => {
    if ((input.subscriberId === undefined) === (input.subscriber === undefined)) ctx.addIssue({ code: 'custom', path: ['subscriberId'], message: 'give exactly one of subscriberId and subscriber' });
  });
export type PreviewInput = z.input<typeof previewInputSchema>;
