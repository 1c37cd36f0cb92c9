import { withRanStep } from '../../walk/step-results.js';
import { TidingsError, notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import { previewInputSchema, type Channel, type EmailBlock, type JsonObject, type MessageCta, type Notification, type PreviewInput, type Subscriber, type WalkState } from '../../schemas/index.js';
import { mergeSubscriber } from '../../subscribers/merge-subscriber.js';
import { ALONE_RENDER_RUNS, renderBudget } from '../../templates/render.js';
import type { TraceEntry } from '../../walk/trace.js';
import type { DigestedEvent, Delivery } from '../../walk/walker.js';
import { parseInput } from '../../validation.js';
import type { EngineContext } from '../context.js';
import { readLooks } from './read-looks.js';
import { EVERY_LOOK } from './look-needs.js';

/** One channel step as it would be sent. */
export interface PreviewedStep {
  readonly stepId: string;
  readonly stepIndex: number;
  readonly channel: Channel;
  readonly subject?: string;
  readonly title?: string;
  /** The step's body: email HTML without its layout, blocks, or text. */
  readonly content: string | EmailBlock[];
  /** Email: the HTML sent (the body in its layout), its text part, preheader and layout. */
  readonly html?: string;
  readonly text?: string;
  readonly preheader?: string;
  readonly layoutId?: string | null;
  readonly senderName?: string;
  readonly cta: MessageCta;
  readonly data?: JsonObject;
}

export interface Preview {
  readonly workflowId: string;
  readonly steps: PreviewedStep[];
  /** Steps that would not be sent, and why (a filter, the channel off by default, a render failure). */
  readonly notSent: { stepId: string; stepIndex: number; type: string; reason: string }[];
}

const previewed = (d: Delivery): PreviewedStep => {
  const { rendered, step } = d;
  const email = rendered.email;
  return {
    stepId: step._id ?? String(d.stepIndex),
    stepIndex: d.stepIndex,
    channel: d.channel,
    content: rendered.content,
    cta: rendered.cta,
    ...(rendered.subject !== undefined && { subject: rendered.subject }),
    ...(rendered.title !== undefined && { title: rendered.title }),
    ...(rendered.data !== undefined && { data: rendered.data }),
    ...(email && { html: email.html, text: email.text, layoutId: email.layoutId, ...(email.preheader && { preheader: email.preheader }), ...(email.senderName && { senderName: email.senderName }) }),
  };
};

/**
 * Renders a workflow's steps as they would be sent to one subscriber, storing nothing and sending
 * nothing: delays count as passed, a digest as holding this one event, and the subscriber's
 * schedule is not waited for. The email HTML is the same function's output the send uses.
 */
export function previewApi(ctx: EngineContext) {
  const { storage, env } = ctx;
  return async function preview(input: PreviewInput): Promise<Preview> {
    const parsed = parseInput(previewInputSchema, input, 'preview');
    const workflow = await storage.workflows.find(env, parsed.workflowId);
    if (!workflow) throw notFound('workflow', parsed.workflowId);
    const now = ctx.clock.now();
    let subscriber: Subscriber;
    if (parsed.subscriberId !== undefined) {
      const stored = (await storage.subscribers.getMany(env, [parsed.subscriberId]))[0];
      if (!stored) throw notFound('subscriber', parsed.subscriberId);
      subscriber = stored;
    } else subscriber = mergeSubscriber(null, parsed.subscriber!, { _id: 'preview', now: now.toISOString(), environmentId: env, organizationId: ctx.organizationId });
    // The subscriber's hours are not waited for in a preview; the locale asked for wins.
    subscriber = { ...subscriber, timezone: null, ...(parsed.locale !== undefined && { locale: parsed.locale }) };
    const tenant = parsed.tenant !== undefined ? await storage.tenants.get(env, parsed.tenant) : null;
    if (parsed.tenant !== undefined && !tenant) throw notFound('tenant', parsed.tenant);
    const prepared = ctx.walker.preparePayload ? await ctx.walker.preparePayload(workflow, parsed.payload) : { ok: true as const, payload: parsed.payload };
    if (!prepared.ok) throw new TidingsError('validation_failed', `Invalid preview: payload: ${prepared.errors.join('; ')}`, { issues: prepared.errors.map((message) => ({ path: 'payload', message })) });
    const notification: Notification = {
      _id: newId(now),
      _environmentId: env,
      _organizationId: ctx.organizationId,
      _templateId: workflow._id,
      templateIdentifier: workflow.identifier,
      transactionId: `preview-${newId(now)}`,
      payload: prepared.payload,
      overrides: {},
      actorId: null,
      tenantId: tenant?.identifier ?? null,
      context: {},
      createdAt: now.toISOString(),
    };
    const look = (await readLooks(storage.records, env, tenant ? [tenant.identifier] : [], EVERY_LOOK, ctx.options))(tenant?.identifier);
    const steps: PreviewedStep[] = [];
    const trace: TraceEntry[] = [];
    let startIndex = 0;
    let state: WalkState | undefined;
    let digestEvents: DigestedEvent[] | undefined;
    let spent = { stepIndex: -1, runs: 0 };
    // Each pass goes at least one step further, or renders a step again at most ALONE_RENDER_RUNS times, so the loop ends.
    for (let pass = 0; pass <= (workflow.steps.length + 1) * ALONE_RENDER_RUNS && startIndex >= 0; pass++) {
      const walk = await ctx.walker.walk({ workflow, notification, subscriber, actor: null, tenant, preferences: [], startIndex, now, outsideSchedule: 'skip', digestEvents, state, look, renderBudget: renderBudget({ alone: true }) });
      steps.push(...walk.deliveries.map(previewed));
      // A step that ran out of render time (a busy machine starves a render) has no later run in a
      // preview: it is rendered again, and after ALONE_RENDER_RUNS tries it is said not to be rendered,
      // never left out.
      const spentAt = walk.spent?.stepIndex;
      if (spentAt !== undefined) spent = { stepIndex: spentAt, runs: spent.stepIndex === spentAt ? spent.runs + 1 : 1 };
      const again = spentAt !== undefined && spent.runs < ALONE_RENDER_RUNS;
      for (const entry of walk.trace) {
        if (entry.stepIndex !== spentAt || entry.decision !== 'held') trace.push(entry);
        else if (!again) trace.push({ ...entry, decision: 'failed', reason: `not rendered: its templates ran out of render time in each of ${ALONE_RENDER_RUNS} tries` });
      }
      state = walk.state;
      if (again) {
        startIndex = spentAt;
        continue;
      }
      // A preview sends no request: the steps after an http step see an empty answer.
      if (walk.http) state = withRanStep(walk.state, { stepId: walk.http.resultKey, stepIndex: walk.http.stepIndex, type: 'http', skipped: false, result: {} });
      const next = walk.http ? walk.http.stepIndex + 1 : walk.resume?.stepIndex ?? (walk.digest ? walk.digest.stepIndex + 1 : walk.throttle ? walk.throttle.stepIndex + 1 : walk.spent ? walk.spent.stepIndex + 1 : -1);
      if (walk.digest) digestEvents = [{ id: notification.transactionId, time: notification.createdAt, payload: notification.payload }];
      if (next <= startIndex) break;
      startIndex = next;
    }
    const notSent = trace.filter((e) => e.decision === 'skipped' || e.decision === 'failed').map((e) => ({ stepId: e.stepId, stepIndex: e.stepIndex, type: e.type, reason: e.reason }));
    const wanted = parsed.stepId;
    const matches = (s: { stepId: string; stepIndex: number }) => wanted === undefined || s.stepId === wanted || String(s.stepIndex) === wanted;
    if (wanted !== undefined && !steps.some(matches) && !notSent.some(matches)) throw notFound('step', wanted);
    return { workflowId: workflow._id, steps: steps.filter(matches), notSent: notSent.filter(matches) };
  };
}
