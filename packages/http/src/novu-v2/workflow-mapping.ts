import { slugify as slugifyName } from '@tidings/core/internal';
import {
  type ActionButton,
  type DelayMetadata,
  type DigestMetadata,
  type FieldIssue,
  type Filter,
  type Step,
  type StepInput,
  type StepTemplate,
  type Workflow,
  type WorkflowInput,
} from '@tidings/core';
import { renderEmailBody } from '@tidings/core/internal';
import { CHANNELS, type ChannelPreferences, type MessageCta, type StepType } from '@tidings/core/schemas';
import { filtersFromSkip, SkipNotMappable, skipFromFilters, type JsonLogic } from './skip-logic.js';
import { flowControlsOf, flowStepFromNovu, keptBranch, novuTypeOf, tidingsTypeOf } from './flow-step-mapping.js';
import {
  CONTROL_SCHEMAS,
  invalid,
  issuesAt,
  stepUpsertSchema,
  type ChatControls,
  type CreateWorkflowBody,
  type DelayControls,
  type DigestControls,
  type EmailControls,
  type InAppControls,
  type ListQuery,
  type NovuPreferences,
  type PushControls,
  type SmsControls,
  type StepUpsert,
  type UpdateWorkflowBody,
} from './workflow-schemas.js';

/**
 * Novu's v2 workflow DTOs and Tidings' workflows, each in the other's terms. Pure functions: the
 * routes fetch and store, these only translate.
 *
 * Control values per step type, and where they live in a Tidings step:
 * - in_app: body → template.content, subject, avatar, data; redirect → cta (type redirect, data.url,
 *   data.target); primaryAction / secondaryAction → cta.action.buttons (label → content, redirect →
 *   url, target).
 * - email: subject, body → template.content (HTML), preheader, from.name → template.senderName.
 * - sms, chat: body → template.content. push: subject → template.title, body → template.content.
 * - delay: amount, unit → metadata { type: regular, amount, unit }.
 * - digest: amount, unit, digestKey `{{payload.path}}` → metadata.digestKey `path`, lookBackWindow →
 *   metadata backoff (backoff, backoffAmount, backoffUnit).
 * - skip (all types) → the step's filters, negated (skip-logic.ts).
 * Novu's stepId is kept in the step's `uuid` (Tidings has no stepId member of its own).
 *
 * What a stored step has and no control shows (a scheduled delay, a timed digest's schedule, filters
 * JSON Logic cannot write, a digest's updateMode) is left out of the control values with an
 * UNSUPPORTED_PROPERTY warning in the step's `issues`, and kept when an update names the step by `_id`
 * and leaves that control out. Members no control touches (payload variables, variants, replyCallback,
 * active, shouldStopOnFail) are kept as they are by such an update.
 */

/** Where in a step response's issues a control that cannot be shown is reported (Novu's StepIssuesDto). */
export interface ControlIssue {
  readonly issueType: 'UNSUPPORTED_PROPERTY';
  readonly message: string;
  readonly severity: 'warning';
}

export type ControlValues = Record<string, unknown>;

/** The parts of a stored step the mapping reads. */
export type StoredStep = Pick<Step, 'template' | 'filters'> & Partial<Pick<Step, '_id' | 'name' | 'uuid' | 'metadata' | 'http' | 'branch'>>;

/** Derived workflow and step ids, as Novu slugifies names (a step's fallback is `step`). */
export const slugify = (text: string, fallback = 'step'): string => slugifyName(text, fallback);

const STEP_LABELS: Record<StepType, string> = { in_app: 'In-App', email: 'Email', sms: 'SMS', chat: 'Chat', push: 'Push', digest: 'Digest', delay: 'Delay', throttle: 'Throttle', http: 'HTTP Request', branch: 'Branch', custom: 'Custom', wait: 'Wait' };

/** A step's name as Novu shows it: its own, its template's, or its type and place. */
export const stepNameOf = (step: StoredStep, index: number): string => step.name ?? step.template.name ?? `${STEP_LABELS[step.template.type]} Step ${index + 1}`;

/** A unique id: `base`, else `base-2`, `base-3`, … */
function unique(base: string, taken: Set<string>): string {
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
  taken.add(id);
  return id;
}

/**
 * Novu's stepId of each stored step: its `uuid` (the first step holding one keeps it), else the slug of
 * its name, made unique within the workflow.
 */
export function stepIdsOf(steps: readonly StoredStep[]): string[] {
  const taken = new Set<string>();
  const own = steps.map((s) => (s.uuid && !taken.has(s.uuid) ? (taken.add(s.uuid), s.uuid) : undefined));
  return steps.map((step, i) => own[i] ?? unique(slugify(step.uuid ?? stepNameOf(step, i)), taken));
}

// ---------------------------------------------------------------------------------------------
// Tidings → Novu

const warning = (message: string): ControlIssue => ({ issueType: 'UNSUPPORTED_PROPERTY', message, severity: 'warning' });

function redirectOf(url: string | undefined, target: string | undefined) {
  return url === undefined ? undefined : { url, ...(target !== undefined && { target }) };
}

function actionOf(button: ActionButton | undefined) {
  if (!button) return undefined;
  const redirect = redirectOf(button.url, button.target);
  return { ...(button.content !== '' && { label: button.content }), ...(redirect && { redirect }) };
}

/** A step's content as one text: email blocks as the HTML they are sent as, other blocks as text. */
function bodyOf(template: StepTemplate, issues: Record<string, ControlIssue[]>): string | undefined {
  if (typeof template.content !== 'object') return template.content;
  const rendered = renderEmailBody(template.content);
  issues['body'] = [warning('the step holds content blocks; body shows them as the HTML they are sent as, and an update stores that HTML')];
  return template.type === 'email' ? rendered.html : rendered.text;
}

/** `path` as Novu's digest key `{{payload.path}}`. */
export const digestKeyControl = (path: string) => `{{payload.${path}}}`;

function skipOf(step: StoredStep, values: ControlValues, issues: Record<string, ControlIssue[]>): void {
  const skip = skipFromFilters(step.filters);
  if (skip) values['skip'] = skip;
  else if (skip === null) issues['skip'] = [warning('the step has filters JSON Logic cannot express (LIKE, ANY_IN, ALL_IN, a typed group or an empty one); they are kept, and an update that leaves skip out keeps them')];
}

function digestControls(metadata: DigestMetadata | undefined, values: ControlValues, issues: Record<string, ControlIssue[]>): void {
  const m = metadata ?? { type: 'regular' as const };
  values['type'] = m.type === 'timed' ? 'timed' : 'regular';
  if (m.type === 'preference') {
    if (m.digestKey !== undefined) values['digestKey'] = digestKeyControl(m.digestKey);
    issues['amount'] = [warning('each subscriber chooses the digest\'s window among metadata.choices (a preference digest), which has no Novu control; an update that leaves amount, unit and lookBackWindow out keeps it')];
    return;
  }
  if (m.amount !== undefined) values['amount'] = m.amount;
  if (m.unit !== undefined) values['unit'] = m.unit;
  if (m.digestKey !== undefined) values['digestKey'] = digestKeyControl(m.digestKey);
  if (m.type === 'timed') {
    issues['cron'] = [warning('the digest fires on a schedule (metadata.timed), which has no cron form here; an update that keeps type "timed" without cron keeps it')];
    return;
  }
  if (m.type === 'backoff' || m.backoff === true) {
    const amount = m.backoffAmount ?? m.amount;
    const unit = m.backoffUnit ?? m.unit;
    if (amount !== undefined && unit !== undefined) values['lookBackWindow'] = { amount, unit };
    else issues['lookBackWindow'] = [warning('the digest uses backoff without a window length; an update that leaves lookBackWindow out drops the backoff')];
  }
  if (m.updateMode === true) issues['updateMode'] = [warning('each event moves the digest\'s flush (updateMode), which has no Novu control; it is kept on update')];
}

function delayControls(metadata: StoredStep['metadata'], values: ControlValues, issues: Record<string, ControlIssue[]>): void {
  if (metadata && 'type' in metadata && metadata.type === 'scheduled') {
    issues['type'] = [warning(`the delay waits until the date at payload.${metadata.delayPath} (a scheduled delay), which has no Novu control; an update that leaves amount and unit out keeps it`)];
    return;
  }
  values['type'] = 'regular';
  const m = metadata as DelayMetadata | undefined;
  if (m?.type === 'regular' && m.amount !== undefined) values['amount'] = m.amount;
  if (m?.type === 'regular' && m.unit !== undefined) values['unit'] = m.unit;
}

/**
 * A stored step's Novu control values, and warnings for what it holds that no control can show.
 * For the mappable subset, `stepFromNovu(controlValuesOf(step).values)` gives the step back.
 */
export function controlValuesOf(step: StoredStep): { values: ControlValues; issues: Record<string, ControlIssue[]> } {
  const t = step.template;
  const values: ControlValues = {};
  const issues: Record<string, ControlIssue[]> = {};
  const set = (key: string, value: unknown) => {
    if (value !== undefined) values[key] = value;
  };
  switch (t.type) {
    case 'in_app': {
      set('body', bodyOf(t, issues));
      set('subject', t.subject);
      set('avatar', t.avatar);
      set('redirect', redirectOf(t.cta?.data?.url, t.cta?.data?.target));
      const buttons = t.cta?.action?.buttons ?? [];
      set('primaryAction', actionOf(buttons.find((b) => b.type === 'primary')));
      set('secondaryAction', actionOf(buttons.find((b) => b.type === 'secondary')));
      set('data', t.data);
      break;
    }
    case 'email':
      set('subject', t.subject ?? '');
      set('body', bodyOf(t, issues));
      values['editorType'] = 'html';
      set('preheader', t.preheader);
      if (t.senderName !== undefined) values['from'] = { name: t.senderName };
      break;
    case 'sms':
    case 'chat':
      set('body', bodyOf(t, issues));
      break;
    case 'push':
      set('subject', t.title);
      set('body', bodyOf(t, issues));
      break;
    case 'digest':
      digestControls(step.metadata as DigestMetadata | undefined, values, issues);
      break;
    case 'delay':
      delayControls(step.metadata, values, issues);
      break;
    case 'throttle':
    case 'http':
    case 'custom':
    case 'branch':
      Object.assign(values, flowControlsOf(step));
      if (t.type === 'branch') issues['custom'] = [warning('a Tidings branch step (Novu has none): shown as a custom step, kept as it is by an update that names it, changed through /v1/workflows')];
      break;
  }
  skipOf(step, values, issues);
  return { values, issues };
}

/** What a step may read, as Novu's `variables` JSON schema (Tidings does not trace variables per step). */
const STEP_VARIABLES = {
  type: 'object',
  properties: {
    subscriber: { type: 'object', additionalProperties: true },
    payload: { type: 'object', additionalProperties: true },
    steps: { type: 'object', additionalProperties: true },
  },
  additionalProperties: true,
};

const ORIGIN = 'novu-cloud';

/** One step as Novu's StepResponseDto (also `GET /v2/workflows/:workflowId/steps/:stepId`). */
export function stepToNovu(workflow: Workflow, index: number, stepIds = stepIdsOf(workflow.steps)) {
  const step = workflow.steps[index]!;
  const { values, issues } = controlValuesOf(step);
  const name = stepNameOf(step, index);
  const _id = step._templateId ?? step._id ?? stepIds[index]!;
  return {
    _id,
    stepId: stepIds[index]!,
    name,
    slug: `${slugify(name)}_st_${_id}`,
    type: novuTypeOf(step.template.type),
    origin: ORIGIN,
    workflowId: workflow.identifier,
    workflowDatabaseId: workflow._id,
    controls: { values },
    controlValues: values,
    variables: STEP_VARIABLES,
    ...(Object.keys(issues).length > 0 && { issues: { controls: issues } }),
  };
}

const statusOf = (workflow: Workflow) => (workflow.active && !workflow.draft ? 'ACTIVE' : 'INACTIVE');

/** The workflow's preferences as Novu shows them: its defaults, no user-level ones. */
export function preferencesToNovu(workflow: Pick<Workflow, 'critical' | 'preferenceSettings'>) {
  return {
    user: null,
    default: {
      all: { enabled: true, readOnly: workflow.critical },
      channels: Object.fromEntries(CHANNELS.map((c) => [c, { enabled: workflow.preferenceSettings[c] ?? true }])),
    },
  };
}

/** A workflow as Novu's WorkflowResponseDto. */
export function workflowToNovu(workflow: Workflow) {
  const stepIds = stepIdsOf(workflow.steps);
  return {
    _id: workflow._id,
    workflowId: workflow.identifier,
    slug: workflow.slug,
    name: workflow.name,
    description: workflow.description,
    tags: workflow.tags,
    active: workflow.active,
    severity: workflow.severity,
    isTranslationEnabled: false,
    origin: ORIGIN,
    status: statusOf(workflow),
    preferences: preferencesToNovu(workflow),
    steps: workflow.steps.map((_, i) => stepToNovu(workflow, i, stepIds)),
    createdAt: workflow.createdAt,
    updatedAt: workflow.updatedAt,
  };
}

/** A workflow as an item of Novu's list (WorkflowListResponseDto). */
export function workflowToNovuListItem(workflow: Workflow) {
  const full = workflowToNovu(workflow);
  return {
    _id: full._id,
    workflowId: full.workflowId,
    slug: full.slug,
    name: full.name,
    tags: full.tags,
    origin: full.origin,
    status: full.status,
    isTranslationEnabled: false,
    stepTypeOverviews: workflow.steps.map((s) => novuTypeOf(s.template.type)),
    steps: full.steps.map((s) => ({ slug: s.slug, type: s.type, ...(s.issues && { issues: s.issues }) })),
    createdAt: full.createdAt,
    updatedAt: full.updatedAt,
  };
}

/** Novu's list: filtered by query (name or workflowId), tags (any) and status, ordered, one page. */
export function listWorkflows(workflows: readonly Workflow[], query: ListQuery) {
  const text = query.query?.trim().toLowerCase();
  const matching = workflows.filter(
    (w) =>
      (!text || w.name.toLowerCase().includes(text) || w.identifier.toLowerCase().includes(text)) &&
      (!query.tags?.length || query.tags.some((tag) => w.tags.includes(tag))) &&
      (!query.status?.length || query.status.includes(statusOf(w))),
  );
  // Tidings does not record when a workflow was last triggered: that order falls back to creation.
  const key = (w: Workflow) => (query.orderBy === 'name' ? w.name.toLowerCase() : query.orderBy === 'updatedAt' ? w.updatedAt : w.createdAt);
  const sign = query.orderDirection === 'ASC' ? 1 : -1;
  const ordered = [...matching].sort((a, b) => sign * (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a._id < b._id ? -1 : a._id > b._id ? 1 : 0));
  return { workflows: ordered.slice(query.offset, query.offset + query.limit).map(workflowToNovuListItem), totalCount: matching.length };
}

// ---------------------------------------------------------------------------------------------
// Novu → Tidings

const PAYLOAD_KEY = /^\{\{\s*payload\.([^\s{}|]+)\s*\}\}$/;
const SUBSCRIBER_KEY = /^\{\{\s*subscriber\.subscriberId\s*\}\}$/;

/** A block-editor (Maily) document: JSON of `{ type: "doc", … }`. */
function isBlockDocument(body: string): boolean {
  const text = body.trim();
  if (!text.startsWith('{')) return false;
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && (parsed as { type?: unknown }).type === 'doc';
  } catch {
    return false;
  }
}

interface StepContext {
  /** `steps[1].controlValues` */
  readonly at: string;
  /** The stored step the update names by `_id`, when it has the same type. */
  readonly base: Step | undefined;
  readonly issues: FieldIssue[];
}

const issue = (ctx: StepContext, member: string, message: string) => ctx.issues.push({ path: `${ctx.at}.${member}`, message });

function button(type: ActionButton['type'], action: NonNullable<InAppControls['primaryAction']>, base: ActionButton | undefined): ActionButton {
  return {
    type,
    content: action.label ?? '',
    ...(action.redirect && { url: action.redirect.url, ...(action.redirect.target !== undefined && { target: action.redirect.target }) }),
    ...(base?.resultContent !== undefined && { resultContent: base.resultContent }),
  };
}

function inAppTemplate(c: InAppControls, ctx: StepContext): StepTemplate {
  const stored = ctx.base?.template.cta?.action?.buttons ?? [];
  const buttons = [
    ...(c.primaryAction ? [button('primary', c.primaryAction, stored.find((b) => b.type === 'primary'))] : []),
    ...(c.secondaryAction ? [button('secondary', c.secondaryAction, stored.find((b) => b.type === 'secondary'))] : []),
  ];
  const cta: MessageCta = {
    ...(c.redirect && { type: 'redirect' as const, data: { url: c.redirect.url, ...(c.redirect.target !== undefined && { target: c.redirect.target }) } }),
    ...(buttons.length > 0 && { action: { buttons } }),
  };
  return {
    type: 'in_app',
    ...(c.body !== undefined && { content: c.body }),
    ...(c.subject !== undefined && { subject: c.subject }),
    ...(c.avatar !== undefined && { avatar: c.avatar }),
    ...(Object.keys(cta).length > 0 && { cta }),
    ...(c.data !== undefined && { data: c.data }),
  };
}

function emailTemplate(c: EmailControls, ctx: StepContext): StepTemplate {
  if (c.body !== undefined && isBlockDocument(c.body)) {
    issue(ctx, 'body', 'is a block-editor (Maily) document, which Tidings does not render; send the email as HTML (editorType: "html")');
  }
  return {
    type: 'email',
    ...(c.subject !== undefined && { subject: c.subject }),
    // The SDK sends body "" when none is given; an empty body is no body.
    ...(c.body !== undefined && c.body !== '' && { content: c.body }),
    ...(c.preheader !== undefined && { preheader: c.preheader }),
    ...(c.from?.name !== undefined && { senderName: c.from.name }),
  };
}

/** Amount and unit come together or not at all. */
function amountAndUnit(c: { amount?: number | undefined; unit?: string | undefined }, ctx: StepContext): boolean {
  if (c.amount !== undefined && c.unit === undefined) issue(ctx, 'unit', 'is required with amount');
  if (c.unit !== undefined && c.amount === undefined) issue(ctx, 'amount', 'is required with unit');
  return c.amount !== undefined && c.unit !== undefined;
}

function delayMetadata(c: DelayControls, ctx: StepContext): Step['metadata'] {
  if (c.type === 'timed') issue(ctx, 'type', 'only "regular" is supported: a timed delay needs a cron expression, which Tidings does not read');
  const paired = amountAndUnit(c, ctx);
  const stored = ctx.base?.metadata;
  // A scheduled delay (which no control shows) stays until an update gives amount and unit.
  if (c.amount === undefined && c.unit === undefined && stored && 'type' in stored && stored.type === 'scheduled') return stored;
  return { type: 'regular', ...(paired && { amount: c.amount!, unit: c.unit! }) };
}

function digestKeyOf(control: string | undefined, ctx: StepContext): string | undefined {
  if (control === undefined || SUBSCRIBER_KEY.test(control)) return undefined;
  const match = PAYLOAD_KEY.exec(control);
  if (!match) {
    issue(ctx, 'digestKey', 'must name a payload member as {{payload.path}} (or {{subscriber.subscriberId}}, the default): Tidings digests events per value of one payload member');
    return undefined;
  }
  return match[1];
}

function digestMetadata(c: DigestControls, ctx: StepContext): DigestMetadata {
  const paired = amountAndUnit(c, ctx);
  const digestKey = digestKeyOf(c.digestKey, ctx);
  const common = { ...(paired && { amount: c.amount!, unit: c.unit! }), ...(digestKey !== undefined && { digestKey }) };
  const stored = ctx.base?.metadata as DigestMetadata | undefined;
  if (stored?.type === 'preference' && c.type !== 'timed' && !paired && !c.lookBackWindow) {
    const { digestKey: _stored, ...offer } = stored;
    return { ...offer, ...(digestKey !== undefined && { digestKey }) };
  }
  if (c.type === 'timed') {
    if (stored?.type === 'timed') {
      if (c.lookBackWindow) issue(ctx, 'lookBackWindow', 'applies to regular digests only');
      return { type: 'timed', ...common, ...(stored.timed && { timed: stored.timed }) };
    }
    issue(ctx, 'type', 'only "regular" is supported: a timed digest needs a cron expression, which Tidings does not read (timed digests can be defined through POST /v1/workflows, metadata.timed)');
  }
  const updateMode = (stored?.type === 'regular' || stored?.type === 'backoff') && stored.updateMode === true;
  return {
    type: 'regular',
    ...common,
    ...(c.lookBackWindow && { backoff: true, backoffAmount: c.lookBackWindow.amount, backoffUnit: c.lookBackWindow.unit }),
    ...(updateMode && { updateMode: true }),
  };
}

function filtersOf(skip: JsonLogic | undefined, ctx: StepContext): Filter[] {
  if (skip === undefined) {
    // Filters the response could not show stay until an update sets skip.
    const stored = ctx.base?.filters ?? [];
    return skipFromFilters(stored) === null ? stored : [];
  }
  try {
    return filtersFromSkip(skip);
  } catch (error) {
    if (!(error instanceof SkipNotMappable)) throw error;
    issue(ctx, 'skip', `does not map onto Tidings step filters: ${error.message}`);
    return [];
  }
}

/**
 * One step of a create or update as a Tidings step. `stepId` is the step's Novu id (kept as `uuid`);
 * `base` the stored step its `_id` names, if any. Problems are added to `issues` with Novu's paths.
 */
export function stepFromNovu(dto: StepUpsert, controls: Record<string, unknown>, stepId: string, stored: Step | undefined, at: string, issues: FieldIssue[]): StepInput {
  const base = stored?.template.type === tidingsTypeOf(dto.type) ? stored : undefined;
  const ctx: StepContext = { at: `${at}.controlValues`, base, issues };
  const branch = dto.type === 'custom' ? keptBranch(controls, stored, (member, message) => issue(ctx, member, message)) : null;
  if (branch) return branch;
  let template: StepTemplate;
  let metadata: Step['metadata'];
  let http: Step['http'] | undefined;
  switch (dto.type) {
    case 'in_app':
      template = inAppTemplate(controls as InAppControls, ctx);
      break;
    case 'email':
      template = emailTemplate(controls as EmailControls, ctx);
      break;
    case 'sms':
    case 'chat': {
      const c = controls as SmsControls | ChatControls;
      template = { type: dto.type, ...(c.body !== undefined && { content: c.body }) };
      break;
    }
    case 'push': {
      const c = controls as PushControls;
      template = { type: 'push', ...(c.subject !== undefined && { title: c.subject }), ...(c.body !== undefined && { content: c.body }) };
      break;
    }
    case 'delay':
      template = { type: 'delay' };
      metadata = delayMetadata(controls as DelayControls, ctx);
      break;
    case 'digest':
      template = { type: 'digest' };
      metadata = digestMetadata(controls as DigestControls, ctx);
      break;
    case 'throttle':
    case 'http_request':
    case 'custom': {
      const mapped = flowStepFromNovu(dto.type, controls, (member, message) => issue(ctx, member, message));
      template = mapped.template;
      metadata = mapped.metadata;
      http = mapped.http as Step['http'];
      break;
    }
  }
  const filters = filtersOf((controls as { skip?: JsonLogic }).skip, ctx);
  return {
    // The stored step keeps its ids, and what Novu's controls have no say in.
    ...(stored && { _id: stored._id, ...(stored._templateId !== undefined && { _templateId: stored._templateId }) }),
    ...(base && {
      active: base.active,
      shouldStopOnFail: base.shouldStopOnFail,
      variants: base.variants,
      ...(base.replyCallback && { replyCallback: base.replyCallback }),
      ...(base._parentId !== undefined && { _parentId: base._parentId }),
    }),
    name: dto.name,
    uuid: stepId,
    template: {
      ...template,
      ...(base?.template.name !== undefined && { name: base.template.name }),
      ...(base?.template.variables && { variables: base.template.variables }),
    },
    filters,
    ...(metadata && { metadata }),
    ...(http && { http }),
  };
}

/** Novu's preferences as Tidings' `critical` and `preferenceSettings`; `user` (when set) wins, as in Novu. */
function preferencesFromNovu(
  body: CreateWorkflowBody | UpdateWorkflowBody,
  existing: Workflow | null,
  issues: FieldIssue[],
): { critical: boolean; preferenceSettings: ChannelPreferences } {
  const p = body.preferences;
  const [key, prefs]: [string, NovuPreferences | null | undefined] = p?.user ? ['user', p.user] : ['workflow', p?.workflow];
  if (!prefs) return { critical: existing?.critical ?? false, preferenceSettings: existing?.preferenceSettings ?? {} };
  const at = `preferences.${key}`;
  if (prefs.all?.enabled === false) {
    issues.push({ path: `${at}.all.enabled`, message: 'false is not supported: a Tidings workflow is on for a subscriber until they turn it off; turn channels off under channels' });
  }
  const preferenceSettings: ChannelPreferences = {};
  for (const channel of CHANNELS) {
    const enabled = prefs.channels?.[channel]?.enabled;
    if (enabled !== undefined) preferenceSettings[channel] = enabled;
  }
  const critical = prefs.all?.readOnly ?? false;
  // Refused when asked for, not when a stored workflow (made through /v1) already has it and is saved back.
  const stored = existing?.critical === true && CHANNELS.every((c) => (existing.preferenceSettings[c] ?? true) === (preferenceSettings[c] ?? true));
  if (critical && Object.values(preferenceSettings).includes(false) && !stored) {
    issues.push({ path: `${at}.all.readOnly`, message: 'true cannot be combined with a channel turned off: a read-only (critical) Tidings workflow sends on every channel of its steps' });
  }
  return { critical, preferenceSettings };
}

/** Steps given as Novu DTOs, checked one by one (problems named by `steps[i]…`), with their stepIds. */
function stepsFromNovu(raw: readonly unknown[], existing: Workflow | null, issues: FieldIssue[]): StepInput[] {
  const parsed: { index: number; dto: StepUpsert; controls: Record<string, unknown>; stored: Step | undefined }[] = [];
  const named = new Map<string, number>();
  raw.forEach((item, index) => {
    const at = `steps[${index}]`;
    const step = issuesAt(stepUpsertSchema, item, at);
    if (!step.ok) return void issues.push(...step.issues);
    const dto = step.data as StepUpsert;
    const controls = issuesAt(CONTROL_SCHEMAS[dto.type], dto.controlValues ?? {}, `${at}.controlValues`);
    if (!controls.ok) return void issues.push(...controls.issues);
    // An `_id` that names no stored step is a new step, as in Novu.
    const stored = dto._id === undefined ? undefined : existing?.steps.find((s) => s._id === dto._id || s._templateId === dto._id);
    if (stored && named.has(stored._id!)) issues.push({ path: `${at}._id`, message: `names the same stored step as steps[${named.get(stored._id!)}]` });
    if (stored) named.set(stored._id!, index);
    parsed.push({ index, dto, controls: controls.data as Record<string, unknown>, stored });
  });
  // stepIds: those given first (each once), then the stored step's, then the slug of the name.
  const taken = new Set<string>();
  for (const { index, dto } of parsed) {
    if (dto.stepId === undefined) continue;
    if (taken.has(dto.stepId)) issues.push({ path: `steps[${index}].stepId`, message: 'is already the stepId of another step' });
    taken.add(dto.stepId);
  }
  const kept = parsed.map(({ dto, stored }) => {
    if (dto.stepId !== undefined || stored?.uuid === undefined || taken.has(stored.uuid)) return dto.stepId;
    taken.add(stored.uuid);
    return stored.uuid;
  });
  return parsed.map(({ index, dto, controls, stored }, i) => stepFromNovu(dto, controls, kept[i] ?? unique(slugify(dto.name), taken), stored, `steps[${index}]`, issues));
}

/**
 * A create or update body as the Tidings workflow to store. `existing` is the stored workflow an update
 * changes (null for a create): what Novu's DTO has no member for is kept from it. Throws the 422
 * naming every field that does not map.
 */
export function workflowInputFromNovu(body: CreateWorkflowBody | UpdateWorkflowBody, existing: Workflow | null): WorkflowInput {
  const issues: FieldIssue[] = [];
  const steps = stepsFromNovu(body.steps, existing, issues);
  const { critical, preferenceSettings } = preferencesFromNovu(body, existing, issues);
  const requested = body.workflowId?.trim();
  if (existing && requested && requested !== existing.identifier) {
    issues.push({ path: 'workflowId', message: `cannot change (it is the trigger identifier "${existing.identifier}"); create a new workflow instead` });
  }
  if (issues.length > 0) throw invalid('workflow', issues);
  const identifier = existing?.identifier ?? requested ?? slugify(body.name, 'workflow');
  const [trigger, ...otherTriggers] = existing?.triggers ?? [];
  return {
    ...(existing && {
      _id: existing._id,
      slug: existing.slug,
      draft: existing.draft,
      _notificationGroupId: existing._notificationGroupId,
      ...(existing.notificationGroup && { notificationGroup: existing.notificationGroup }),
      ...(existing.data && { data: existing.data }),
      ...(existing.workflowIntegrationStatus && { workflowIntegrationStatus: existing.workflowIntegrationStatus }),
      ...(existing._parentId !== undefined && { _parentId: existing._parentId }),
    }),
    name: body.name,
    description: body.description ?? existing?.description ?? '',
    tags: body.tags ?? existing?.tags ?? [],
    active: body.active ?? existing?.active ?? true,
    severity: body.severity ?? existing?.severity ?? 'none',
    critical,
    preferenceSettings,
    triggers: [{ ...(trigger ?? { type: 'event' as const, variables: [] }), identifier }, ...otherTriggers],
    steps,
  };
}

// ---------------------------------------------------------------------------------------------
// Engine issues in Novu's terms

const TEMPLATE_CONTROLS: Record<string, string> = {
  content: 'body',
  subject: 'subject',
  title: 'subject',
  avatar: 'avatar',
  preheader: 'preheader',
  senderName: 'from.name',
  data: 'data',
  'cta.data': 'redirect',
};
const METADATA_CONTROLS: Record<string, string> = {
  amount: 'amount',
  unit: 'unit',
  digestKey: 'digestKey',
  backoffAmount: 'lookBackWindow.amount',
  backoffUnit: 'lookBackWindow.unit',
};

/** A path of an issue the engine found in the mapped workflow, as the Novu member it came from. */
export function novuPathOf(path: string, input: WorkflowInput): string {
  if (path.startsWith('triggers')) return 'workflowId';
  if (path.startsWith('preferenceSettings')) return 'preferences.workflow.channels';
  if (path === 'critical') return 'preferences.workflow.all.readOnly';
  const match = /^steps\[(\d+)\]\.?(.*)$/.exec(path);
  if (!match) return path;
  const [, index, rest = ''] = match;
  const at = `steps[${index}]`;
  const controls = `${at}.controlValues`;
  if (rest.startsWith('filters')) return `${controls}.skip`;
  if (rest.startsWith('metadata')) {
    const member = rest.slice('metadata.'.length).split(/[.[]/)[0] ?? '';
    return METADATA_CONTROLS[member] ? `${controls}.${METADATA_CONTROLS[member]}` : controls;
  }
  if (rest.startsWith('template.')) {
    const member = rest.slice('template.'.length);
    const button = /^cta\.action\.buttons\[(\d+)\]/.exec(member);
    if (button) {
      const type = input.steps?.[Number(index)]?.template.cta?.action?.buttons?.[Number(button[1])]?.type;
      return `${controls}.${type === 'secondary' ? 'secondaryAction' : 'primaryAction'}`;
    }
    const key = Object.keys(TEMPLATE_CONTROLS).find((k) => member === k || member.startsWith(`${k}.`) || member.startsWith(`${k}[`));
    return key ? `${controls}.${TEMPLATE_CONTROLS[key]}` : controls;
  }
  return rest === '' ? at : `${at}.${rest}`;
}
