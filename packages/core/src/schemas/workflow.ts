import { z } from 'zod';
import { debounceSchema } from './debounce.js';
import { jobPrioritySchema } from './enums.js';
import { categoryKeySchema, unsubscribeScopeSchema } from './category.js';
import { idSchema } from './limits.js';
import { channelPreferencesSchema } from './schedule.js';
import { isoInstantSchema, jsonObjectSchema, severitySchema } from './enums.js';
import { delayMetadataSchema, digestMetadataSchema, stepSchema, type Step } from './step.js';
import { templateSyntaxError } from '../templates/render.js';
import { throttleMetadataSchema } from './frequency.js';
import { checkBranchRefs, checkFlowStep } from './flow-step-checks.js';
import { cancelOnSchema, waitMetadataSchema } from './wait.js';

/** A revision of a workflow: a stored workflow's number, or a code workflow's hash. */
export const workflowRevisionRefSchema = z.union([z.number().int().positive(), z.string().min(1)]);
export type WorkflowRevisionRef = z.infer<typeof workflowRevisionRefSchema>;

export const triggerSchema = z.strictObject({
  type: z.literal('event').default('event'),
  identifier: idSchema,
  variables: z.array(z.strictObject({ name: z.string() })).default([]),
  subscriberVariables: z.array(z.strictObject({ name: z.string() })).optional(),
});
export type WorkflowTrigger = z.infer<typeof triggerSchema>;

export const notificationGroupSchema = z.strictObject({
  _id: z.string().optional(),
  name: z.string(),
  _environmentId: z.string(),
  _organizationId: z.string(),
  _parentId: z.string().optional(),
});

type StepCheck = (step: Step, addIssue: (path: (string | number)[], message: string) => void) => void;

/** Checks the schema alone cannot: metadata must fit the step type (digest or delay). */
const checkStepMetadata: StepCheck = (step, addIssue) => {
  const type = step.template.type;
  if (type === 'digest') {
    const parsed = digestMetadataSchema.safeParse(step.metadata ?? { type: 'regular' });
    if (!parsed.success) for (const i of parsed.error.issues) addIssue(['metadata', ...i.path.map(String)], i.message);
  } else if (type === 'delay') {
    const parsed = delayMetadataSchema.safeParse(step.metadata ?? { type: 'regular' });
    if (!parsed.success) for (const i of parsed.error.issues) addIssue(['metadata', ...i.path.map(String)], i.message);
  } else if (type === 'throttle') {
    const parsed = throttleMetadataSchema.safeParse(step.metadata);
    if (!parsed.success) for (const i of parsed.error.issues) addIssue(['metadata', ...i.path.map(String)], step.metadata === undefined ? 'a throttle step needs { amount, unit, limit }' : i.message);
  } else if (type === 'wait') {
    const parsed = waitMetadataSchema.safeParse(step.metadata);
    if (!parsed.success) for (const i of parsed.error.issues) addIssue(['metadata', ...i.path.map(String)], step.metadata === undefined ? 'a wait step needs { event, timeout } or { token: true, timeout }' : i.message);
  } else if (step.metadata !== undefined) {
    addIssue(['metadata'], `a ${type} step takes no digest, delay or throttle metadata`);
  }
};

/** Templates are parsed when the workflow is saved, so a syntax error never waits for the first send. */
const checkTemplateSyntax: StepCheck = (step, addIssue) => {
  const { subject, title, content, avatar, cta, slots, props } = step.template;
  const texts: [string, string | undefined][] = [
    ['subject', subject],
    ['title', title],
    ['avatar', avatar],
    ['cta.data.url', cta?.data?.url],
    ...Object.entries(slots ?? {}).map(([name, text]): [string, string] => [`slots.${name}`, text]),
    ...textsOf(props ?? {}, 'props'),
  ];
  if (typeof content === 'string') texts.push(['content', content]);
  else content?.forEach((block, i) => texts.push([`content[${i}].content`, block.content], [`content[${i}].url`, block.url]));
  for (const [field, text] of texts) {
    const error = text === undefined ? null : templateSyntaxError(text);
    if (error) addIssue(['template', ...field.split('.')], `template does not parse: ${error}`);
  }
};

/** Every text in a JSON value, with its path. */
const textsOf = (value: unknown, path: string): [string, string][] =>
  typeof value === 'string' ? [[path, value]] : typeof value === 'object' && value !== null ? Object.entries(value).flatMap(([key, inner]) => textsOf(inner, `${path}.${key}`)) : [];

/** A component, its props and slots are an email's; a component makes the whole body, so it comes without `content`. */
const checkEmailFields: StepCheck = (step, addIssue) => {
  const { type, component, props, slots, content } = step.template;
  for (const [field, value] of [['component', component], ['props', props], ['slots', slots]] as const) {
    if (value !== undefined && type !== 'email') addIssue(['template', field], `only an email step takes ${field}; a ${type} step has none`);
  }
  if (type !== 'email') return;
  if (component !== undefined && content !== undefined && content !== '') addIssue(['template', 'content'], 'give content or component, not both: the component renders the whole body');
  if (props !== undefined && component === undefined) addIssue(['template', 'props'], 'props are for a component: name one in template.component');
};

/** A fallback channel is for channel steps, and another channel than the step's own. */
const checkFallback: StepCheck = (step, addIssue) => {
  const { fallbackTo } = step;
  const type = step.template.type;
  if (fallbackTo === undefined) return;
  if (type === 'digest' || type === 'delay' || type === 'throttle' || type === 'wait') addIssue(['fallbackTo'], `a ${type} step sends nothing to fall back from`);
  else if (fallbackTo === type) addIssue(['fallbackTo'], `must be another channel than the step's own (${type})`);
};

/** Only the feed's messages expire: a ttl is for in-app steps. */
const checkTtl: StepCheck = (step, addIssue) => {
  if (step.ttl !== undefined && step.template.type !== 'in_app') addIssue(['ttl'], `only in-app messages expire; a ${step.template.type} step takes no ttl`);
};

const stepChecks: StepCheck[] = [checkStepMetadata, checkTemplateSyntax, checkEmailFields, checkFallback, checkTtl, checkFlowStep];

const workflowFields = {
  _id: z.string().optional(),
  name: z.string().trim().min(1, 'must not be empty'),
  description: z.string().default(''),
  active: z.boolean().default(true),
  draft: z.boolean().default(false),
  critical: z.boolean().default(false),
  severity: severitySchema.default('none'),
  preferenceSettings: channelPreferencesSchema.default({}),
  tags: z.array(z.string()).default([]),
  steps: z.array(stepSchema).default([]),
  /** Signals that cancel a subscriber's pending run of the workflow (see docs/waits.md). */
  cancelOn: cancelOnSchema.optional(),
  /**
   * The workflow's category (`marketing`, `product-updates`, …): subscribers can turn a whole category
   * off, and one-click unsubscribe opts out of it. A tag `category:<key>` sets it when this is absent.
   */
  category: categoryKeySchema.optional(),
  /**
   * What an email's one-click unsubscribe (List-Unsubscribe) opts out of. @default the category's
   * setting, else 'category' when the workflow has one, else 'workflow'; always 'none' when critical
   */
  unsubscribe: unsubscribeScopeSchema.optional(),
  /** The layout of the workflow's email steps that name none; `null` for none. */
  layoutId: z.string().min(1, 'must not be empty').nullable().optional(),
  /**
   * Which revision the later steps of a run use (after a delay, a digest, a retry): `pinned`, the one
   * its trigger used; `latest`, whatever the workflow is when the step runs. The stored workflow's
   * setting decides, so turning it to `latest` lets pending runs take an edit. @default 'pinned'
   */
  runs: z.enum(['pinned', 'latest']).optional(),
  /** The class of its triggers' jobs (a trigger's own `priority` wins): `transactional` jobs are claimed before `bulk` ones. @default by audience */
  priority: jobPrioritySchema.optional(),
  /** Folds a burst of triggers of the workflow into one run with the last one's event (a trigger's own `debounce` wins). */
  debounce: debounceSchema.optional(),
  triggers: z.array(triggerSchema).min(1, 'a workflow needs a trigger identifier'),
  slug: z.string().optional(),
  _notificationGroupId: z.string().optional(),
  notificationGroup: notificationGroupSchema.optional(),
  data: jsonObjectSchema.optional(),
  workflowIntegrationStatus: jsonObjectSchema.optional(),
  _parentId: z.string().optional(),
};

/**
 * Members the server makes: accepted in an input (so a stored workflow saves again as it is) and
 * ignored, the server sets them.
 */
const serverMadeWorkflowMembers = {
  identifier: z.string().optional(),
  _organizationId: z.string().optional(),
  _environmentId: z.string().optional(),
  _creatorId: z.string().optional(),
  deleted: z.boolean().optional(),
  deletedAt: z.string().nullable().optional(),
  deletedBy: z.string().nullable().optional(),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
  revision: z.union([z.number(), z.string()]).optional(),
};

/**
 * The interface's Workflow as a caller gives it; server-made members are optional. A member it does
 * not know is refused, at any depth, so a misplaced setting never goes silently unused.
 */
export const workflowInputSchema = z.strictObject({ ...workflowFields, ...serverMadeWorkflowMembers }).superRefine((workflow, ctx) => {
  workflow.steps.forEach((step, s) => {
    const report = (base: (string | number)[]) => (path: (string | number)[], message: string) =>
      ctx.addIssue({ code: 'custom', path: [...base, ...path], message });
    for (const check of stepChecks) {
      check(step, report(['steps', s]));
      step.variants.forEach((variant, v) => check({ ...variant, variants: [] }, report(['steps', s, 'variants', v])));
    }
  });
  checkBranchRefs(workflow.steps, ctx);
});
export type WorkflowInput = z.input<typeof workflowInputSchema>;

export const workflowSchema = z.object({
  ...workflowFields,
  _id: z.string(),
  identifier: z.string(),
  slug: z.string(),
  _organizationId: z.string(),
  _environmentId: z.string(),
  _creatorId: z.string(),
  _notificationGroupId: z.string(),
  deleted: z.boolean(),
  deletedAt: z.string().nullable(),
  deletedBy: z.string().nullable(),
  createdAt: isoInstantSchema,
  updatedAt: isoInstantSchema,
  /**
   * The workflow's current revision: a number counted from 1 for a stored workflow (each change
   * stores one, see `workflows.history`), a hash of its discovered steps and options for one written
   * in code. Absent on a workflow stored before revisions were kept, until its next change.
   */
  revision: workflowRevisionRefSchema.optional(),
});
export type Workflow = z.infer<typeof workflowSchema>;
