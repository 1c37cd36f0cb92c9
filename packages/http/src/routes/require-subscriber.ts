import type { Subscriber } from '@tidings/core';
import { notFound } from '@tidings/core/internal';
import type { RouteInput } from './route.js';

/** The subscriber with this subscriberId; not_found (a 404) when there is none. */
export async function requireSubscriber(tidings: RouteInput['tidings'], id: string): Promise<Subscriber> {
  const subscriber = await tidings.subscribers.get(id);
  if (!subscriber) throw notFound('Subscriber', id);
  return subscriber;
}
