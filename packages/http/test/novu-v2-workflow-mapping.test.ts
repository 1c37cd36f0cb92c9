/**
 * The pure mapping between Novu's v2 workflow DTOs and Tidings' workflows (src/novu-v2): examples per
 * control, the round trip Tidings step → Novu controls (through `@novu/api`'s own request models, as
 * the SDK would send them) → Tidings step, and every answer checked against the SDK's response models.
 */
import {
  ChatStepUpsertDto$outboundSchema,
  CustomStepUpsertDto$outboundSchema,
  DelayStepUpsertDto$outboundSchema,
  HttpRequestStepUpsertDto$outboundSchema,
  ThrottleStepUpsertDto$outboundSchema,
  DigestStepUpsertDto$outboundSchema,
  EmailStepUpsertDto$outboundSchema,
  InAppStepUpsertDto$outboundSchema,
  ListWorkflowResponse$inboundSchema,
  PushStepUpsertDto$outboundSchema,
  SmsStepUpsertDto$outboundSchema,
  StepResponseDto$inboundSchema,
  WorkflowResponseDto$inboundSchema,
} from '@novu/api/models/components';
import { isTidingsError, type FieldIssue, type Step, type StepInput, type Workflow } from '@tidings/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { controlValuesOf, listWorkflows, novuPathOf, stepFromNovu, stepIdsOf, stepToNovu, workflowInputFromNovu, workflowToNovu } from '../src/novu-v2/workflow-mapping.js';
import { CONTROL_SCHEMAS, createWorkflowSchema, issuesAt, listQuerySchema, updateWorkflowSchema, type NovuStepType, type StepUpsert } from '../src/novu-v2/workflow-schemas.js';
import { mappableStep, storedWorkflow } from './novu-v2-arbitraries.js';

/** The SDK's request model of each step type (what `novu.workflows.create` sends). */
const SDK_STEP = {
  in_app: InAppStepUpsertDto$outboundSchema,
  email: EmailStepUpsertDto$outboundSchema,
  sms: SmsStepUpsertDto$outboundSchema,
  chat: ChatStepUpsertDto$outboundSchema,
  push: PushStepUpsertDto$outboundSchema,
  delay: DelayStepUpsertDto$outboundSchema,
  digest: DigestStepUpsertDto$outboundSchema,
  throttle: ThrottleStepUpsertDto$outboundSchema,
  http_request: HttpRequestStepUpsertDto$outboundSchema,
  custom: CustomStepUpsertDto$outboundSchema,
} as const;

/** A Novu step DTO as it arrives: through the SDK's request model, then JSON. */
function overTheWire(dto: { name: string; type: NovuStepType; stepId?: string; id?: string; controlValues: Record<string, unknown> }) {
  return JSON.parse(JSON.stringify((SDK_STEP[dto.type] as { parse(v: unknown): unknown }).parse(dto))) as Record<string, unknown>;
}

/** One step DTO mapped as the routes map it: schema of its type, then stepFromNovu. */
function fromNovu(wire: Record<string, unknown>, stored?: Step) {
  const controls = issuesAt(CONTROL_SCHEMAS[wire['type'] as NovuStepType], wire['controlValues'] ?? {}, 'steps[0].controlValues');
  if (!controls.ok) return { step: undefined, issues: controls.issues };
  const issues: FieldIssue[] = [];
  const dto = wire as unknown as StepUpsert;
  const step = stepFromNovu(dto, controls.data as Record<string, unknown>, dto.stepId ?? 'step', stored, 'steps[0]', issues);
  return { step, issues };
}

const issuesOf = (run: () => unknown): FieldIssue[] => {
  try {
    run();
  } catch (error) {
    if (isTidingsError(error, 'validation_failed')) return [...error.issues];
    throw error;
  }
  throw new Error('expected a validation error');
};

const create = (body: unknown) => createWorkflowSchema.parse(body);

describe('Novu control values → Tidings steps', () => {
  it('in-app: body, subject, avatar, data, redirect and the two actions', () => {
    const { step, issues } = fromNovu({
      name: 'Bell',
      type: 'in_app',
      controlValues: {
        body: 'Hi {{ subscriber.firstName }}',
        subject: 'Welcome',
        avatar: 'https://x.io/a.png',
        data: { kind: 'welcome' },
        redirect: { url: '/home', target: '_blank' },
        primaryAction: { label: 'Start', redirect: { url: '/start' } },
        secondaryAction: { label: 'Later' },
        disableOutputSanitization: false,
      },
    });
    expect(issues).toEqual([]);
    expect(step!.template).toEqual({
      type: 'in_app',
      content: 'Hi {{ subscriber.firstName }}',
      subject: 'Welcome',
      avatar: 'https://x.io/a.png',
      data: { kind: 'welcome' },
      cta: { type: 'redirect', data: { url: '/home', target: '_blank' }, action: { buttons: [{ type: 'primary', content: 'Start', url: '/start' }, { type: 'secondary', content: 'Later' }] } },
    });
  });

  it('email: subject, HTML body (editorType html or the SDK default block), preheader, from.name; push: subject is the title', () => {
    const email = fromNovu(overTheWire({ name: 'Mail', type: 'email', controlValues: { subject: 'S', body: '<p>B</p>', preheader: 'P', from: { name: 'Acme' } } }));
    expect(email.step!.template).toEqual({ type: 'email', subject: 'S', content: '<p>B</p>', preheader: 'P', senderName: 'Acme' });
    const push = fromNovu({ name: 'Push', type: 'push', controlValues: { subject: 'T', body: 'B' } });
    expect(push.step!.template).toEqual({ type: 'push', title: 'T', content: 'B' });
    expect(fromNovu({ name: 'SMS', type: 'sms', controlValues: { body: 'B' } }).step!.template).toEqual({ type: 'sms', content: 'B' });
  });

  it('digest: amount, unit, digest key and look-back window; the subscriber key is the default', () => {
    const { step } = fromNovu(overTheWire({ name: 'D', type: 'digest', controlValues: { amount: 10, unit: 'minutes', digestKey: '{{ payload.post.id }}', lookBackWindow: { amount: 2, unit: 'minutes' } } }));
    expect(step!.metadata).toEqual({ type: 'regular', amount: 10, unit: 'minutes', digestKey: 'post.id', backoff: true, backoffAmount: 2, backoffUnit: 'minutes' });
    expect(fromNovu({ name: 'D', type: 'digest', controlValues: { amount: 1, unit: 'hours', digestKey: '{{subscriber.subscriberId}}' } }).step!.metadata).toEqual({ type: 'regular', amount: 1, unit: 'hours' });
    expect(fromNovu({ name: 'D', type: 'digest', controlValues: { digestKey: '{{ payload.a }}-{{ payload.b }}' } }).issues.map((i) => i.path)).toEqual(['steps[0].controlValues.digestKey']);
  });

  it('delay: amount and unit together; timed and cron are refused by name', () => {
    expect(fromNovu(overTheWire({ name: 'W', type: 'delay', controlValues: { amount: 2, unit: 'days' } })).step!.metadata).toEqual({ type: 'regular', amount: 2, unit: 'days' });
    expect(fromNovu({ name: 'W', type: 'delay', controlValues: { unit: 'days' } }).issues.map((i) => i.path)).toEqual(['steps[0].controlValues.amount']);
    expect(fromNovu({ name: 'W', type: 'delay', controlValues: { type: 'timed' } }).issues.map((i) => i.path)).toEqual(['steps[0].controlValues.type']);
    expect(fromNovu({ name: 'W', type: 'delay', controlValues: { cron: '* * * * *' } }).issues.map((i) => i.path)).toEqual(['steps[0].controlValues.cron']);
  });

  it('members Tidings cannot honour are refused by name, not dropped', () => {
    const paths = (type: NovuStepType, controlValues: Record<string, unknown>) => fromNovu({ name: 'X', type, controlValues }).issues.map((i) => i.path);
    expect(paths('email', { subject: 's', from: { email: 'a@b.c' } })).toEqual(['steps[0].controlValues.from.email']);
    expect(paths('email', { subject: 's', replyTo: 'a@b.c' })).toEqual(['steps[0].controlValues.replyTo']);
    expect(paths('email', { subject: 's', layoutId: null })).toEqual([]);
    expect(paths('chat', { body: 'b', editorType: 'block' })).toEqual(['steps[0].controlValues.editorType']);
    expect(paths('in_app', { body: 'b', unknown: 1 })).toEqual(['steps[0].controlValues.unknown']);
    expect(paths('digest', { amount: 0, unit: 'hours' })).toEqual(['steps[0].controlValues.amount']);
  });
});

describe('workflows: create and update bodies', () => {
  const steps = [
    { name: 'Email', type: 'email', controlValues: { subject: 'a' } },
    { name: 'Email', type: 'email', controlValues: { subject: 'b' } },
    { name: 'Bell', type: 'in_app', stepId: 'bell', controlValues: { body: 'c' } },
  ];

  it('create: workflowId is the trigger identifier (else the slug of the name), stepIds from names made unique', () => {
    const input = workflowInputFromNovu(create({ name: 'Big News!', steps, severity: 'high', tags: ['t'] }), null);
    expect(input.triggers).toEqual([{ type: 'event', variables: [], identifier: 'big-news' }]);
    expect(input).toMatchObject({ name: 'Big News!', severity: 'high', tags: ['t'], active: true, critical: false, preferenceSettings: {} });
    expect(input.steps!.map((s) => s.uuid)).toEqual(['email', 'email-2', 'bell']);
    expect(workflowInputFromNovu(create({ name: 'X', workflowId: 'x-id', steps: [] }), null).triggers[0]!.identifier).toBe('x-id');
  });

  it('a stepId given twice, or a stored step named twice, is refused', () => {
    const twice = issuesOf(() => workflowInputFromNovu(create({ name: 'X', steps: [{ ...steps[2], stepId: 'same' }, { ...steps[2], stepId: 'same' }] }), null));
    expect(twice.map((i) => i.path)).toEqual(['steps[1].stepId']);
  });

  it('preferences: user wins over workflow; readOnly is critical; all.enabled false and readOnly with a channel off are refused', () => {
    const body = (preferences: unknown) => create({ name: 'X', steps: [], preferences });
    expect(workflowInputFromNovu(body({ workflow: { all: { readOnly: true }, channels: { sms: { enabled: true } } } }), null)).toMatchObject({ critical: true, preferenceSettings: { sms: true } });
    expect(workflowInputFromNovu(body({ user: { channels: { email: { enabled: false } } }, workflow: { channels: { email: { enabled: true } } } }), null).preferenceSettings).toEqual({ email: false });
    expect(issuesOf(() => workflowInputFromNovu(body({ workflow: { all: { enabled: false } } }), null)).map((i) => i.path)).toEqual(['preferences.workflow.all.enabled']);
    expect(issuesOf(() => workflowInputFromNovu(body({ user: { all: { readOnly: true }, channels: { push: { enabled: false } } } }), null)).map((i) => i.path)).toEqual(['preferences.user.all.readOnly']);
    expect(createWorkflowSchema.safeParse({ name: 'X', steps: [], preferences: { workflow: { channels: { fax: { enabled: false } } } } }).success).toBe(false);
  });

  it('update: steps named by _id keep their ids, stepId and what no control shows; new steps get new ones', () => {
    const stored = {
      _id: 'wf1',
      identifier: 'news',
      slug: 'news_wf_wf1',
      name: 'News',
      description: 'd',
      active: true,
      draft: false,
      critical: false,
      severity: 'none',
      preferenceSettings: { email: false },
      tags: ['a'],
      triggers: [{ type: 'event', identifier: 'news', variables: [{ name: 'x' }] }],
      data: { color: 'red' },
      steps: [
        {
          _id: 's1',
          _templateId: 's1',
          uuid: 'old-id',
          name: 'Digest',
          active: false,
          shouldStopOnFail: true,
          variants: [],
          template: { type: 'digest', variables: [{ name: 'k', defaultValue: 'v' }] },
          filters: [{ isNegated: false, type: 'GROUP', value: 'AND', children: [{ on: 'payload', field: 't', operator: 'LIKE', value: '%x%' }] }],
          metadata: { type: 'regular', amount: 1, unit: 'hours', updateMode: true },
        },
      ],
    } as unknown as Workflow;
    const body = updateWorkflowSchema.parse({
      name: 'News 2',
      preferences: {},
      steps: [
        { _id: 's1', name: 'Digest', type: 'digest', controlValues: { amount: 2, unit: 'hours' } },
        { _id: 'unknown', name: 'Bell', type: 'in_app', controlValues: { body: 'b' } },
      ],
    });
    const input = workflowInputFromNovu(body, stored);
    expect(input).toMatchObject({ _id: 'wf1', slug: 'news_wf_wf1', name: 'News 2', description: 'd', tags: ['a'], data: { color: 'red' }, preferenceSettings: { email: false } });
    expect(input.triggers).toEqual([{ type: 'event', identifier: 'news', variables: [{ name: 'x' }] }]);
    expect(input.steps![0]).toEqual({
      _id: 's1',
      _templateId: 's1',
      uuid: 'old-id',
      name: 'Digest',
      active: false,
      shouldStopOnFail: true,
      variants: [],
      template: { type: 'digest', variables: [{ name: 'k', defaultValue: 'v' }] },
      filters: stored.steps[0]!.filters,
      metadata: { type: 'regular', amount: 2, unit: 'hours', updateMode: true },
    });
    expect(input.steps![1]).toEqual({ name: 'Bell', uuid: 'bell', template: { type: 'in_app', content: 'b' }, filters: [] });
    // Setting skip replaces the filters the response could not show.
    const replaced = workflowInputFromNovu(updateWorkflowSchema.parse({ ...body, steps: [{ _id: 's1', name: 'Digest', type: 'digest', controlValues: { skip: { '==': [{ var: 'payload.a' }, 1] } } }] }), stored);
    expect(replaced.steps![0]!.filters).toEqual([{ isNegated: true, type: 'GROUP', value: 'AND', children: [{ on: 'payload', field: 'a', operator: 'EQUAL', value: '1' }] }]);
    expect(issuesOf(() => workflowInputFromNovu(updateWorkflowSchema.parse({ ...body, workflowId: 'other' }), stored)).map((i) => i.path)).toEqual(['workflowId']);
  });

  it('engine issues are named by the Novu member they came from', () => {
    const input = workflowInputFromNovu(create({ name: 'X', steps: [{ name: 'B', type: 'in_app', controlValues: { secondaryAction: { label: 'x' }, body: 'b' } }] }), null);
    expect(novuPathOf('steps[0].template.content', input)).toBe('steps[0].controlValues.body');
    expect(novuPathOf('steps[0].template.cta.data.url', input)).toBe('steps[0].controlValues.redirect');
    expect(novuPathOf('steps[0].template.cta.action.buttons[0].url', input)).toBe('steps[0].controlValues.secondaryAction');
    expect(novuPathOf('steps[0].metadata.backoffUnit', input)).toBe('steps[0].controlValues.lookBackWindow.unit');
    expect(novuPathOf('steps[0].filters[0].children[0].value', input)).toBe('steps[0].controlValues.skip');
    expect(novuPathOf('steps[0].name', input)).toBe('steps[0].name');
    expect(novuPathOf('triggers[0].identifier', input)).toBe('workflowId');
    expect(novuPathOf('name', input)).toBe('name');
  });
});

describe('Tidings workflows → Novu answers', () => {
  it('what no control shows is a warning in the step issues, not a silent gap', () => {
    const warned = (step: Partial<Step>) => Object.keys(controlValuesOf({ filters: [], ...step } as Step).issues);
    expect(warned({ template: { type: 'delay' }, metadata: { type: 'scheduled', delayPath: 'at' } })).toEqual(['type']);
    expect(warned({ template: { type: 'digest' }, metadata: { type: 'timed', timed: { atTime: '09:00' } } })).toEqual(['cron']);
    expect(warned({ template: { type: 'digest' }, metadata: { type: 'regular', amount: 1, unit: 'hours', updateMode: true } })).toEqual(['updateMode']);
    expect(warned({ template: { type: 'email', content: [{ type: 'text', content: 'Hi' }] } })).toEqual(['body']);
    expect(controlValuesOf({ filters: [], template: { type: 'email', content: [{ type: 'text', content: 'Hi' }] } } as unknown as Step).values['body']).toContain('<p style="text-align:left">Hi</p>');
  });

  it('list: query on name or workflowId, tags, status, order and page', () => {
    const make = (i: number, name: string, tags: string[], active: boolean): Workflow =>
      ({ _id: `w${i}`, identifier: `id-${i}`, slug: `s${i}`, name, description: '', active, draft: false, critical: false, severity: 'none', preferenceSettings: {}, tags, triggers: [{ type: 'event', identifier: `id-${i}`, variables: [] }], steps: [], createdAt: `2026-01-0${i}T00:00:00.000Z`, updatedAt: `2026-02-0${10 - i}T00:00:00.000Z` }) as unknown as Workflow;
    const all = [make(1, 'Alpha', ['a'], true), make(2, 'beta', ['b'], false), make(3, 'Gamma', ['a', 'b'], true)];
    const ids = (q: Record<string, unknown>) => listWorkflows(all, listQuerySchema.parse(q)).workflows.map((w) => w.workflowId);
    expect(ids({})).toEqual(['id-3', 'id-2', 'id-1']);
    expect(ids({ orderBy: 'name', orderDirection: 'ASC' })).toEqual(['id-1', 'id-2', 'id-3']);
    expect(ids({ orderBy: 'updatedAt', orderDirection: 'ASC' })).toEqual(['id-3', 'id-2', 'id-1']);
    expect(ids({ tags: ['b'], status: ['ACTIVE'] })).toEqual(['id-3']);
    expect(ids({ query: 'ID-2' })).toEqual(['id-2']);
    expect(listWorkflows(all, listQuerySchema.parse({ limit: '1', offset: '1' }))).toMatchObject({ totalCount: 3, workflows: [{ workflowId: 'id-2' }] });
  });
});

describe('properties', () => {
  it('Tidings step → Novu controls (through the SDK request model and JSON) → Tidings step is the identity on the mappable subset', () => {
    fc.assert(
      fc.property(mappableStep, (step) => {
        const { values, issues } = controlValuesOf(step as Step);
        expect(issues).toEqual({});
        const type = step.template.type as NovuStepType;
        const back = fromNovu(overTheWire({ name: step.name, type, stepId: step.uuid, controlValues: values }));
        expect(back.issues).toEqual([]);
        expect(back.step).toEqual(step as StepInput);
      }),
      { numRuns: 500 },
    );
  });

  it("every answer validates against @novu/api's response models, whatever the stored workflow holds", () => {
    fc.assert(
      fc.property(storedWorkflow, (workflow) => {
        const wire = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;
        const parsed = WorkflowResponseDto$inboundSchema.safeParse(wire(workflowToNovu(workflow)));
        expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
        const list = ListWorkflowResponse$inboundSchema.safeParse(wire(listWorkflows([workflow], listQuerySchema.parse({}))));
        expect(list.success, JSON.stringify(list.error?.issues)).toBe(true);
        const ids = stepIdsOf(workflow.steps);
        expect(new Set(ids).size).toBe(ids.length);
        workflow.steps.forEach((_, i) => expect(StepResponseDto$inboundSchema.safeParse(wire(stepToNovu(workflow, i))).success).toBe(true));
      }),
      { numRuns: 300 },
    );
  });

  it('a stored workflow read through /v2 and written back unchanged keeps its steps (ids, stepIds, content)', () => {
    fc.assert(
      fc.property(storedWorkflow, (workflow) => {
        const answer = workflowToNovu(workflow);
        const body = updateWorkflowSchema.parse({
          name: answer.name,
          tags: answer.tags,
          active: answer.active,
          severity: answer.severity,
          preferences: { workflow: answer.preferences.default },
          steps: answer.steps.map((s) => ({ _id: s._id, stepId: s.stepId, name: s.name, type: s.type, controlValues: s.controls.values })),
        });
        const input = workflowInputFromNovu(body, workflow);
        expect(input.steps!.map((s) => [s._id, s.uuid, s.template.type])).toEqual(workflow.steps.map((s, i) => [s._id, stepIdsOf(workflow.steps)[i], s.template.type]));
        // Reading the result again shows the same controls.
        const again = workflowToNovu({ ...workflow, ...input, steps: input.steps as Step[] } as Workflow);
        expect(again.steps.map((s) => s.controls.values)).toEqual(answer.steps.map((s) => s.controls.values));
        expect(again.preferences).toEqual(answer.preferences);
      }),
      { numRuns: 300 },
    );
  });
});
