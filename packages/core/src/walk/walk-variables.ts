import type { FilterContext } from '../filters/evaluate.js';
import type { WalkInput } from './walker.js';
import { PARTIALS } from '../templates/render.js';

/** The data templates and filters see in a walk. */
export function walkVariables(input: WalkInput): Record<string, unknown> & FilterContext {
  const { subscriber, notification, actor, tenant } = input;
  return {
    subscriber: { ...subscriber, data: subscriber.data ?? {} },
    payload: notification.payload,
    actor: actor ?? {},
    tenant: tenant ? { identifier: tenant.identifier, name: tenant.name, data: tenant.data } : {},
    brand: input.look?.brand ?? {},
    step: input.digestEvents
      ? { events: input.digestEvents.map((e) => e.payload), total_count: input.digestEvents.length, digest: true }
      : { events: [notification.payload], total_count: 1, digest: false },
  };
}

/** The locale a walk's emails are written in: the subscriber's. */
export const emailLocale = (input: Pick<WalkInput, 'subscriber'>): string | null => input.subscriber.locale ?? null;

/** The variables of an email step and its layout: the walk's, with the environment's partials for `{% render %}`. */
export const emailVariables = (variables: Record<string, unknown>, input: Pick<WalkInput, 'look'>): Record<string, unknown> =>
  input.look?.partials ? { ...variables, [PARTIALS]: input.look.partials } : variables;
