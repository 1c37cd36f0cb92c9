import { route, type RouteDefinition } from './route.js';

/** Deletes a subscriber with its preferences and topic subscriptions (404 when it does not exist): v1's route and v2's. */
export const subscriberDeletion = (path: string, summary: string): RouteDefinition =>
  route({
    method: 'delete',
    path,
    summary,
    status: 200,
    envelope: 'data',
    async handle({ tidings, params }) {
      await tidings.subscribers.delete(params['subscriberId']!);
      return { acknowledged: true, status: 'deleted' };
    },
  });
