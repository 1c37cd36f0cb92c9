import { TidingsError, type FieldIssue } from '@tidings/core';
import { formatPath, inputHazards } from '@tidings/core/internal';
import { channelSchema, MAX_ID_LENGTH, redirectTargetSchema, severitySchema, timeUnitSchema } from '@tidings/core/schemas';
import { z } from 'zod';
import { wholeNumber } from '../params.js';
import { customControlsSchema, httpRequestControlsSchema, throttleControlsSchema } from './flow-step-mapping.js';

/**
 * The inputs of Novu's `/v2/workflows` as `@novu/api` 3.x sends them (its CreateWorkflowDto,
 * UpdateWorkflowDto, PatchWorkflowDto, the step upsert DTOs and their control values), one zod schema
 * per shape. Members the SDK always sends but Tidings has no use for are accepted where leaving them
 * unused changes nothing (`__source`, `disableOutputSanitization`); a value Tidings cannot honour is
 * refused by name instead of silently dropped.
 */

/** The step types Tidings has (http_request is its `http` step); Novu's tool steps are not among them. */
export const NOVU_STEP_TYPES = ['in_app', 'email', 'sms', 'chat', 'push', 'digest', 'delay', 'throttle', 'http_request', 'custom'] as const;
export type NovuStepType = (typeof NOVU_STEP_TYPES)[number];

/** A member Novu has that Tidings cannot honour in any but its neutral value. */
const onlyNeutral = <T extends z.ZodType>(schema: T, neutral: (value: z.output<T>) => boolean, why: string) => schema.refine(neutral, why).optional();

const skipSchema = z.record(z.string(), z.unknown());
const amountSchema = z.number().positive('must be a positive number');
const redirectSchema = z.strictObject({ url: z.string(), target: redirectTargetSchema.optional() });
const actionSchema = z.strictObject({ label: z.string().optional(), redirect: redirectSchema.optional() });

export const inAppControlsSchema = z.strictObject({
  skip: skipSchema.optional(),
  body: z.string().optional(),
  subject: z.string().optional(),
  avatar: z.string().optional(),
  primaryAction: actionSchema.optional(),
  secondaryAction: actionSchema.optional(),
  redirect: redirectSchema.optional(),
  data: z.record(z.string(), z.unknown()).optional(),
  /** Sent by the SDK (false by default); Tidings renders without an output sanitizer either way. */
  disableOutputSanitization: z.boolean().optional(),
});

export const emailControlsSchema = z.strictObject({
  skip: skipSchema.optional(),
  subject: z.string().optional(),
  body: z.string().optional(),
  /** `html`: the body is HTML. `block` (the SDK's default) is accepted for an HTML or text body; a block-editor document is refused. */
  editorType: z.enum(['block', 'html']).optional(),
  disableOutputSanitization: z.boolean().optional(),
  preheader: z.string().optional(),
  from: z.strictObject({
    name: z.string().optional(),
    email: onlyNeutral(z.string(), () => false, "is not supported: Tidings sends from the email integration's from address; set the sender name with from.name"),
  }).optional(),
  layoutId: onlyNeutral(z.string().nullable(), (v) => v === null, 'is not supported: Tidings has no email layouts (only null is accepted)'),
  replyTo: onlyNeutral(z.string(), () => false, 'is not supported on a step: Tidings takes the reply-to address from the email integration'),
  useProviderDefaults: z.boolean().optional(),
});

export const smsControlsSchema = z.strictObject({ skip: skipSchema.optional(), body: z.string().optional() });

export const chatControlsSchema = z.strictObject({
  skip: skipSchema.optional(),
  body: z.string().optional(),
  editorType: onlyNeutral(z.enum(['text', 'block']), (v) => v === 'text', 'only "text" is supported: Tidings sends chat bodies as text'),
});

export const pushControlsSchema = z.strictObject({ skip: skipSchema.optional(), subject: z.string().optional(), body: z.string().optional() });

const cronRefused = 'is not supported: Tidings does not read cron expressions; use type "regular" with amount and unit (timed digests can be defined through POST /v1/workflows, metadata.timed)';

export const delayControlsSchema = z.strictObject({
  skip: skipSchema.optional(),
  /** The SDK sends "regular" by default; "timed" needs a cron expression. */
  type: z.enum(['regular', 'timed']).optional(),
  amount: amountSchema.optional(),
  unit: timeUnitSchema.optional(),
  cron: onlyNeutral(z.string(), () => false, cronRefused),
});

export const digestControlsSchema = z.strictObject({
  skip: skipSchema.optional(),
  type: z.enum(['regular', 'timed']).optional(),
  amount: amountSchema.optional(),
  unit: timeUnitSchema.optional(),
  lookBackWindow: z.strictObject({ amount: amountSchema, unit: timeUnitSchema }).optional(),
  cron: onlyNeutral(z.string(), () => false, cronRefused),
  /** `{{payload.path}}`: events are digested per value of that payload member. */
  digestKey: z.string().optional(),
});

export const CONTROL_SCHEMAS = {
  in_app: inAppControlsSchema,
  email: emailControlsSchema,
  sms: smsControlsSchema,
  chat: chatControlsSchema,
  push: pushControlsSchema,
  delay: delayControlsSchema,
  digest: digestControlsSchema,
  throttle: throttleControlsSchema,
  http_request: httpRequestControlsSchema,
  custom: customControlsSchema,
} as const satisfies Record<NovuStepType, z.ZodType>;

export type InAppControls = z.output<typeof inAppControlsSchema>;
export type EmailControls = z.output<typeof emailControlsSchema>;
export type SmsControls = z.output<typeof smsControlsSchema>;
export type ChatControls = z.output<typeof chatControlsSchema>;
export type PushControls = z.output<typeof pushControlsSchema>;
export type DelayControls = z.output<typeof delayControlsSchema>;
export type DigestControls = z.output<typeof digestControlsSchema>;

/** One step of a create or update (`_id` names a stored step to keep; `stepId` is Novu's readable step key). */
export const stepUpsertSchema = z.strictObject({
  _id: z.string().optional(),
  stepId: z.string().trim().min(1, 'must not be empty').max(MAX_ID_LENGTH).optional(),
  name: z.string().trim().min(1, 'must not be empty'),
  type: z.string().refine((t) => (NOVU_STEP_TYPES as readonly string[]).includes(t), {
    message: `is not a step type Tidings has (${NOVU_STEP_TYPES.join(', ')})`,
  }),
  controlValues: z.record(z.string(), z.unknown()).nullable().optional(),
});
export type StepUpsert = Omit<z.output<typeof stepUpsertSchema>, 'type'> & { type: NovuStepType };

const workflowPreferenceSchema = z.strictObject({ enabled: z.boolean().optional(), readOnly: z.boolean().optional() });
const preferencesSchema = z.strictObject({
  all: workflowPreferenceSchema.optional(),
  channels: z.partialRecord(channelSchema, z.strictObject({ enabled: z.boolean().optional() })).optional(),
});
export type NovuPreferences = z.output<typeof preferencesSchema>;

/** `{ user, workflow }`: the workflow's defaults; `user` (when set) takes their place, as in Novu. */
export const preferencesRequestSchema = z.strictObject({
  user: preferencesSchema.nullable().optional(),
  workflow: preferencesSchema.nullable().optional(),
});

/** Members of Novu's create and update bodies that shape nothing Tidings stores. */
const novuOnlyMembers = {
  /** Where the call came from (`source` in the SDK). */
  __source: z.string().optional(),
  /** JSON schema of the payload, for Novu's editor; Tidings does not keep it. */
  payloadSchema: z.record(z.string(), z.unknown()).nullable().optional(),
  validatePayload: onlyNeutral(z.boolean(), (v) => !v, 'is not supported: Tidings does not validate payloads against a JSON schema (only false is accepted)'),
  isTranslationEnabled: onlyNeutral(z.boolean(), (v) => !v, 'is not supported: Tidings does not translate workflows (only false is accepted)'),
  agent: onlyNeutral(z.unknown(), (v) => v === null, 'is not supported: Tidings has no AI agents (only null is accepted)'),
};

const workflowFields = {
  name: z.string().trim().min(1, 'must not be empty'),
  description: z.string().optional(),
  tags: z.array(z.string()).optional(),
  active: z.boolean().optional(),
  severity: severitySchema.optional(),
  steps: z.array(z.unknown()),
  preferences: preferencesRequestSchema.optional(),
  ...novuOnlyMembers,
};

/** `POST /v2/workflows` (CreateWorkflowDto). `workflowId` is the trigger identifier. */
export const createWorkflowSchema = z.strictObject({ ...workflowFields, workflowId: z.string().trim().min(1, 'must not be empty').max(MAX_ID_LENGTH).optional() });
export type CreateWorkflowBody = z.output<typeof createWorkflowSchema>;

/** `PUT /v2/workflows/:workflowId` (UpdateWorkflowDto): the whole workflow again. */
export const updateWorkflowSchema = z.strictObject({
  ...workflowFields,
  workflowId: z.string().trim().optional(),
  /** Sent back from a response; Tidings' workflows are all its own. */
  origin: z.enum(['novu-cloud', 'novu-cloud-v1', 'external']).optional(),
});
export type UpdateWorkflowBody = z.output<typeof updateWorkflowSchema>;

/** `PATCH /v2/workflows/:workflowId` (PatchWorkflowDto): only the members given change. */
export const patchWorkflowSchema = z.strictObject({
  active: z.boolean().optional(),
  name: z.string().trim().min(1, 'must not be empty').optional(),
  description: z.string().optional(),
  tags: z.array(z.string()).optional(),
  payloadSchema: novuOnlyMembers.payloadSchema,
  validatePayload: novuOnlyMembers.validatePayload,
  isTranslationEnabled: novuOnlyMembers.isTranslationEnabled,
});
export type PatchWorkflowBody = z.output<typeof patchWorkflowSchema>;

/** `GET /v2/workflows`: Novu's list query. `tags` and `status` may repeat. */
export const listQuerySchema = z.strictObject({
  limit: wholeNumber(1, 100).default(10),
  offset: wholeNumber(0, 1_000_000_000).default(0),
  orderDirection: z.enum(['ASC', 'DESC']).default('DESC'),
  orderBy: z.enum(['createdAt', 'updatedAt', 'name', 'lastTriggeredAt']).default('createdAt'),
  query: z.string().optional(),
  tags: z.array(z.string()).optional(),
  status: z.array(z.enum(['ACTIVE', 'INACTIVE', 'ERROR'])).optional(),
});
export type ListQuery = z.output<typeof listQuerySchema>;
/** The list query parameters that may repeat. */
export const LIST_QUERY_ARRAYS = ['tags', 'status'] as const;


/** Issues of `value` against `schema`, paths prefixed (`steps[1].controlValues`); a member nobody knows is named. */
export function issuesAt(schema: z.ZodType, value: unknown, prefix: string): { ok: true; data: unknown } | { ok: false; issues: FieldIssue[] } {
  const hazards = inputHazards(value);
  if (hazards.length > 0) return { ok: false, issues: hazards.map((i) => ({ path: join(prefix, i.path), message: i.message })) };
  const result = schema.safeParse(value);
  if (result.success) return { ok: true, data: result.data };
  const issues = result.error.issues.flatMap((issue): FieldIssue[] =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ path: join(prefix, formatPath([...issue.path, key])), message: 'is not a known member' }))
      : [{ path: join(prefix, formatPath(issue.path)), message: issue.message }],
  );
  return { ok: false, issues };
}

export function join(prefix: string, path: string): string {
  if (!prefix) return path;
  if (!path) return prefix;
  return path.startsWith('[') ? prefix + path : `${prefix}.${path}`;
}

/** A 422 naming every field: `validation_failed` with its issues, as the rest of the API answers. */
export function invalid(what: string, issues: readonly FieldIssue[]): TidingsError {
  const detail = issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ');
  return new TidingsError('validation_failed', `Invalid ${what}: ${detail}`, { issues });
}

/** Parses or throws the 422. */
export function parseOr422<S extends z.ZodType>(schema: S, value: unknown, what: string, prefix = ''): z.output<S> {
  const result = issuesAt(schema, value, prefix);
  if (!result.ok) throw invalid(what, result.issues);
  return result.data as z.output<S>;
}
