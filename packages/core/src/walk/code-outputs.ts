import type { CadenceOffer, Channel, DigestMetadata, JsonObject, MessageCta, TimeUnit } from '../schemas/index.js';
import type { z } from 'zod';
import { redirectTargetSchema, timeUnitSchema } from '../schemas/enums.js';
import type { RenderedContent } from '../templates/render-step.js';

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const object = (value: unknown): JsonObject | undefined => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : undefined);
const target = (value: unknown): RedirectTarget | undefined => {
  const parsed = redirectTargetSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
};
type RedirectTarget = z.infer<typeof redirectTargetSchema>;

/** An in-app action `{ label, redirect: { url, target } }` as a button of the message. */
function button(type: 'primary' | 'secondary', action: JsonObject | undefined) {
  const label = text(action?.['label']);
  if (label === undefined) return [];
  const redirect = object(action?.['redirect']);
  const url = text(redirect?.['url']);
  const to = target(redirect?.['target']);
  return [{ type, content: label, ...(url !== undefined && { url }), ...(to !== undefined && { target: to }) }];
}

/** The call to action of in-app outputs: `redirect` as the message's link, the two actions as its buttons. */
function inAppCta(outputs: JsonObject): MessageCta {
  const redirect = object(outputs['redirect']);
  const url = text(redirect?.['url']);
  const to = target(redirect?.['target']);
  const buttons = [...button('primary', object(outputs['primaryAction'])), ...button('secondary', object(outputs['secondaryAction']))];
  return {
    ...(url !== undefined && { type: 'redirect' as const, data: { url, ...(to !== undefined && { target: to }) } }),
    ...(buttons.length > 0 && { action: { status: 'pending' as const, buttons } }),
  };
}

/** The members of Novu's in-app and push outputs that the message has fields for; any other member goes to its `data`. */
const IN_APP_MEMBERS: ReadonlySet<string> = new Set(['subject', 'body', 'avatar', 'primaryAction', 'secondaryAction', 'redirect', 'data']);
const PUSH_MEMBERS: ReadonlySet<string> = new Set(['subject', 'body']);

/** The outputs' members outside `known`, undefined when there are none. */
function extraMembers(outputs: JsonObject, known: ReadonlySet<string>): JsonObject | undefined {
  const extra = Object.entries(outputs).filter(([key, value]) => !known.has(key) && value !== undefined);
  return extra.length > 0 ? Object.fromEntries(extra) : undefined;
}

/**
 * A channel step's outputs (Novu's shapes) as message content: in-app `subject`, `body`, `avatar`,
 * actions, `redirect` and `data`; email `subject` and `body` (HTML); push `subject` as the title;
 * sms and chat `body`. Members Novu's output schemas do not name (which its validation removes
 * without a word) are kept in `data` rather than dropped: an in-app step's beside its own `data`
 * (whose members win a clash); a push step's (`badge`, `sound`, `data`, …) as they were returned.
 */
export function contentOfOutputs(channel: Channel, outputs: JsonObject): RenderedContent {
  const body = text(outputs['body']) ?? '';
  const subject = text(outputs['subject']);
  if (channel === 'in_app') {
    const avatar = text(outputs['avatar']);
    const given = object(outputs['data']);
    const extra = extraMembers(outputs, IN_APP_MEMBERS);
    const data = extra === undefined ? given : { ...extra, ...given };
    return { content: body, cta: inAppCta(outputs), ...(subject !== undefined && { subject }), ...(avatar !== undefined && { avatar }), ...(data !== undefined && { data }) };
  }
  if (channel === 'push') {
    const data = extraMembers(outputs, PUSH_MEMBERS);
    return { content: body, cta: {}, ...(subject !== undefined && { title: subject }), ...(data !== undefined && { data }) };
  }
  if (channel === 'email') return { content: body, cta: {}, ...(subject !== undefined && { subject }) };
  return { content: body, cta: {} };
}

const unitOf = (value: unknown): TimeUnit | undefined => {
  const parsed = timeUnitSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
};

/** How long or until when a delay step waits, from its outputs. */
export type CodeDelay =
  | { readonly kind: 'regular'; readonly amount: number; readonly unit: TimeUnit }
  | { readonly kind: 'cron'; readonly cron: string }
  | { readonly kind: 'dynamic'; readonly path: string }
  | { readonly kind: 'invalid'; readonly error: string };

/** A delay step's outputs: `{ amount, unit }`, `{ type: 'timed', cron }` or `{ type: 'dynamic', dynamicKey }`. */
export function delayOfOutputs(outputs: JsonObject): CodeDelay {
  const type = outputs['type'] ?? 'regular';
  if (type === 'timed') {
    const cron = text(outputs['cron']);
    return cron ? { kind: 'cron', cron } : { kind: 'invalid', error: 'a timed delay needs `cron`' };
  }
  if (type === 'dynamic') {
    const key = text(outputs['dynamicKey']);
    return key ? { kind: 'dynamic', path: key.replace(/^payload\./, '') } : { kind: 'invalid', error: 'a dynamic delay needs `dynamicKey` (a payload path)' };
  }
  const amount = outputs['amount'];
  const unit = unitOf(outputs['unit']);
  if (typeof amount !== 'number' || !(amount >= 0) || unit === undefined) return { kind: 'invalid', error: 'a regular delay needs `amount` (a number) and `unit` (seconds, minutes, hours, days, weeks or months)' };
  return { kind: 'regular', amount, unit };
}

/**
 * A digest step's outputs as digest metadata: `{ amount, unit, digestKey?, lookBackWindow? }` (the
 * look-back window makes it a backoff digest: an event with none before it in the window goes out at
 * once) or `{ cron, digestKey? }`. `digestKey` is read as a path in the payload (a string naming no
 * member groups by itself, so Novu's form, the value as the key, `digestKey: payload.postId`, groups
 * as in Novu; a path groups by the member's value, where Novu takes the path's own text as the key).
 * With the step's `cadence` option the subscriber chooses the window: the outputs then give only
 * `digestKey` (and `type: 'preference'`).
 */
export function digestOfOutputs(outputs: JsonObject, cadence?: CadenceOffer): { ok: true; metadata: DigestMetadata } | { ok: false; error: string } {
  const key = text(outputs['digestKey']);
  const digestKey = key === undefined ? {} : { digestKey: key.replace(/^payload\./, '') };
  if (cadence) {
    const timing = ['amount', 'unit', 'cron', 'lookBackWindow'].filter((k) => outputs[k] !== undefined);
    if (timing.length > 0 || (outputs['type'] !== undefined && outputs['type'] !== 'preference')) {
      return { ok: false, error: `a digest with the \`cadence\` option takes its window from the subscriber: its outputs give only digestKey (and type "preference"), not ${timing.length > 0 ? timing.join(', ') : `type "${String(outputs['type'])}"`}` };
    }
    return { ok: true, metadata: { type: 'preference', ...cadence, ...digestKey } };
  }
  if (outputs['type'] === 'preference') return { ok: false, error: 'a digest of type "preference" needs the `cadence` step option: the cadences its subscribers choose from' };
  const cron = text(outputs['cron']);
  if (cron !== undefined) return { ok: true, metadata: { type: 'timed', cron, ...digestKey } };
  const amount = outputs['amount'];
  const unit = unitOf(outputs['unit']);
  if (typeof amount !== 'number' || !(amount > 0) || unit === undefined) return { ok: false, error: 'a digest needs `amount` (a positive number) and `unit`, or `cron`' };
  const window = object(outputs['lookBackWindow']);
  if (window === undefined) return { ok: true, metadata: { type: 'regular', amount, unit, ...digestKey } };
  const backoffAmount = window['amount'];
  const backoffUnit = unitOf(window['unit']);
  if (typeof backoffAmount !== 'number' || !(backoffAmount > 0) || backoffUnit === undefined) return { ok: false, error: 'lookBackWindow needs `amount` (a positive number) and `unit`' };
  return { ok: true, metadata: { type: 'regular', amount, unit, backoff: true, backoffAmount, backoffUnit, ...digestKey } };
}
