/**
 * fast-check arbitraries of Tidings steps for the `/v2/workflows` mapping tests: the mappable subset
 * (what Novu's control values express exactly, so Tidings → Novu → Tidings is the identity), and stored
 * steps beyond it (what a workflow made through /v1/workflows may hold).
 */
import { type Filter, type Step, type StepInput, type Workflow } from '@tidings/core';
import { FILTER_ON } from '@tidings/core/schemas';
import fc from 'fast-check';
import { listValue } from '../src/novu-v2/skip-logic.js';

const segment = fc.stringMatching(/^[a-z]{1,4}$/);
const fieldPath = fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => s.join('.'));
const filterText = fc.string({ unit: fc.constantFrom('a', 'B', '1', '.', ',', ' ', '[', ']', '"', '-', 'e', 't', 'r', 'u'), maxLength: 6 });
const noComma = filterText.filter((t) => !t.includes(','));

const comparisonPart = fc.record({
  on: fc.constantFrom(...FILTER_ON),
  field: fieldPath,
  operator: fc.constantFrom('EQUAL', 'NOT_EQUAL', 'LARGER', 'SMALLER', 'LARGER_EQUAL', 'SMALLER_EQUAL' as const),
  value: filterText,
});
const listPart = fc.record({
  on: fc.constantFrom(...FILTER_ON),
  field: fieldPath,
  operator: fc.constantFrom('IN', 'NOT_IN' as const),
  value: fc.array(filterText, { minLength: 1, maxLength: 3 }).map(listValue),
});
const betweenPart = fc.record({
  on: fc.constantFrom(...FILTER_ON),
  field: fieldPath,
  operator: fc.constantFrom('BETWEEN', 'NOT_BETWEEN' as const),
  value: fc.tuple(noComma, noComma).map(([a, b]) => `${a},${b}`),
});
/** Filter lists in the mappable subset: typeless (GROUP) groups of one to three parts JSON Logic can write. */
export const mappableFilters = fc.array(
  fc.record({
    isNegated: fc.boolean(),
    type: fc.constant('GROUP' as const),
    value: fc.constantFrom('AND', 'OR' as const),
    children: fc.array(fc.oneof(comparisonPart, listPart, betweenPart), { minLength: 1, maxLength: 3 }),
  }),
  { maxLength: 3 },
) as fc.Arbitrary<Filter[]>;


const opt = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
/** Drops the members that are undefined, as a stored step has them absent. */
const defined = <T extends object>(value: T): T => Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;

const anyText = fc.string({ maxLength: 12 });
const name = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9 _-]{0,10}[A-Za-z0-9]$/);
const stepId = fc.stringMatching(/^[a-z][a-z0-9-]{0,12}$/);
const url = fc.stringMatching(/^(\/|https:\/\/x\.io\/)[a-z0-9{} .]{0,10}$/);
const target = fc.constantFrom('_self', '_blank', '_parent', '_top', '_unfencedTop' as const);
const link = fc.tuple(url, opt(target)).map(([u, t]) => defined({ url: u, target: t }));
const timeUnit = fc.constantFrom('seconds', 'minutes', 'hours', 'days', 'weeks', 'months' as const);
const amount = fc.oneof(fc.integer({ min: 1, max: 1000 }), fc.double({ min: 0.01, max: 100, noNaN: true }));
const data = fc.dictionary(fc.stringMatching(/^[a-z]{1,5}$/), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }).map((d) => JSON.parse(JSON.stringify(d)) as Record<string, unknown>);
const payloadPath = fc.array(fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,5}$/), { minLength: 1, maxLength: 3 }).map((s) => s.join('.'));

const button = (type: 'primary' | 'secondary') =>
  fc.tuple(anyText, opt(link)).map(([content, l]) => defined({ type, content, url: l?.url, target: l?.target }));
const cta = fc
  .tuple(opt(link), opt(button('primary')), opt(button('secondary')))
  .filter(([redirect, p, s]) => redirect !== undefined || p !== undefined || s !== undefined)
  .map(([redirect, p, s]) => {
    const buttons = [p, s].filter((b) => b !== undefined);
    return { ...(redirect && { type: 'redirect' as const, data: redirect }), ...(buttons.length > 0 && { action: { buttons } }) };
  });

const inApp = fc.record({ type: fc.constant('in_app' as const), content: anyText, subject: anyText, avatar: url, cta, data }, { requiredKeys: ['type'] });
const email = fc.record({ type: fc.constant('email' as const), subject: anyText, content: anyText.filter((t) => t !== ''), preheader: anyText, senderName: anyText }, { requiredKeys: ['type', 'subject'] });
const textStep = (type: 'sms' | 'chat') => fc.record({ type: fc.constant(type), content: anyText }, { requiredKeys: ['type'] });
const push = fc.record({ type: fc.constant('push' as const), title: anyText, content: anyText }, { requiredKeys: ['type'] });

const pair = opt(fc.tuple(amount, timeUnit)).map((p) => (p ? { amount: p[0], unit: p[1] } : {}));
const delayMetadata = pair.map((p) => ({ type: 'regular' as const, ...p }));
const digestMetadata = fc
  .tuple(pair, opt(payloadPath), opt(fc.tuple(amount, timeUnit)))
  .map(([p, digestKey, backoff]) => ({ type: 'regular' as const, ...p, ...(digestKey && { digestKey }), ...(backoff && { backoff: true, backoffAmount: backoff[0], backoffUnit: backoff[1] }) }));

/** Tidings steps Novu's control values express exactly. */
export const mappableStep: fc.Arbitrary<StepInput & { name: string; uuid: string }> = fc
  .tuple(
    name,
    stepId,
    mappableFilters,
    fc.oneof(
      inApp.map((template) => ({ template })),
      email.map((template) => ({ template })),
      textStep('sms').map((template) => ({ template })),
      textStep('chat').map((template) => ({ template })),
      push.map((template) => ({ template })),
      delayMetadata.map((metadata) => ({ template: { type: 'delay' as const }, metadata })),
      digestMetadata.map((metadata) => ({ template: { type: 'digest' as const }, metadata })),
    ),
  )
  .map(([n, id, filters, rest]) => ({ name: n, uuid: id, filters, ...rest }) as StepInput & { name: string; uuid: string });

const likeFilter: Filter = { isNegated: false, type: 'GROUP', value: 'AND', children: [{ on: 'payload', field: 'title', operator: 'LIKE', value: '%a%' }] };

/** Stored steps beyond the subset: no name or uuid, filters JSON Logic cannot write, timed digests, scheduled delays, blocks. */
const oddStep: fc.Arbitrary<StepInput> = fc.oneof(
  mappableStep.map(({ name: _n, uuid: _u, ...step }) => step),
  mappableStep.map((step) => ({ ...step, filters: [likeFilter] })),
  fc.constant<StepInput>({ template: { type: 'delay' }, metadata: { type: 'scheduled', delayPath: 'sendAt' } }),
  fc.constant<StepInput>({ template: { type: 'digest' }, metadata: { type: 'timed', amount: 1, unit: 'days', timed: { atTime: '09:00' } } }),
  fc.constant<StepInput>({ template: { type: 'digest' }, metadata: { type: 'backoff', updateMode: true } }),
  fc.constant<StepInput>({ template: { type: 'email', content: [{ type: 'text', content: 'Hi' }, { type: 'button', content: 'Go', url: 'https://x.io' }] } }),
  fc.constant<StepInput>({ template: { type: 'in_app', cta: { data: { target: '_blank' } } } }),
);

/** A stored workflow as the engine keeps it, with steps in and beyond the mappable subset. */
export const storedWorkflow: fc.Arbitrary<Workflow> = fc
  .record({
    name,
    active: fc.boolean(),
    draft: fc.boolean(),
    critical: fc.boolean(),
    severity: fc.constantFrom('high', 'medium', 'low', 'none' as const),
    tags: fc.array(fc.stringMatching(/^[a-z]{1,6}$/), { maxLength: 3 }),
    preferenceSettings: fc.record({ in_app: fc.boolean(), email: fc.boolean(), sms: fc.boolean(), chat: fc.boolean(), push: fc.boolean() }, { requiredKeys: [] }),
    steps: fc.array(fc.oneof(mappableStep, oddStep), { maxLength: 5 }),
  })
  .map(({ steps, ...w }) => ({
    ...w,
    _id: 'wf1',
    identifier: 'wf-id',
    slug: 'wf_wf_wf1',
    description: '',
    triggers: [{ type: 'event' as const, identifier: 'wf-id', variables: [] }],
    steps: steps.map((s, i): Step => ({ active: true, shouldStopOnFail: false, variants: [], filters: [], ...s, _id: `st${i}`, _templateId: `st${i}` }) as Step),
    _organizationId: 'org',
    _environmentId: 'env',
    _creatorId: 'tidings',
    _notificationGroupId: 'general',
    deleted: false,
    deletedAt: null,
    deletedBy: null,
    createdAt: '2026-06-01T12:00:00.000Z',
    updatedAt: '2026-06-01T12:00:00.000Z',
  }));
