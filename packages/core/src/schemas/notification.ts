import { z } from 'zod';
import { isoInstantSchema, jsonObjectSchema } from './enums.js';

/** One accepted trigger: the record every job and message of that trigger points back to. */
export const notificationSchema = z.object({
  _id: z.string(),
  _environmentId: z.string(),
  _organizationId: z.string(),
  _templateId: z.string(),
  templateIdentifier: z.string(),
  transactionId: z.string(),
  payload: jsonObjectSchema,
  overrides: jsonObjectSchema,
  actorId: z.string().nullable(),
  tenantId: z.string().nullable(),
  context: z.record(z.string(), z.string()),
  createdAt: isoInstantSchema,
});
export type Notification = z.infer<typeof notificationSchema>;

export const jobDataSchema = z.object({
  notificationId: z.string(),
  /** Index of the next step to walk. */
  stepIndex: z.number().int().min(0),
  /** Set on the job that flushes a digest: the walk goes on with that digest's events. */
  digestId: z.string().optional(),
  /** Set when a backoff digest let this event through: the walk goes on as a digest of this event alone. */
  passedDigest: z.boolean().optional(),
  /** Set on an `unsnooze` job: the message to bring back. */
  messageId: z.string().optional(),
  /** Set on a `fanout` job: the members of a large audience it walks, in one commit. */
  subscriberIds: z.array(z.string()).optional(),
});
export type JobData = z.infer<typeof jobDataSchema>;

/**
 * A durable unit of work: `walk` the steps of one notification for one subscriber from
 * `data.stepIndex`; `fanout`: start the walks of a chunk of a large audience (`data.subscriberIds`,
 * `subscriberId` names the first); or `unsnooze` one message when its snooze ends.
 */
export interface Job {
  id: string;
  environmentId: string;
  kind: 'walk' | 'fanout' | 'unsnooze';
  runAt: string;
  attempts: number;
  lockedBy: string | null;
  lockedUntil: string | null;
  transactionId: string;
  subscriberId: string;
  data: JobData;
  lastError: string | null;
}
