import { TidingsError, type Clock } from '@tidings/core';
import { notFound } from '@tidings/core/internal';
import { Hono, type Context } from 'hono';
import type { AppEnv } from '../context.js';
import { notificationRoutes } from '../inbox/notification-routes.js';
import { checkedParams } from '../params.js';

const refusedKeys = (message: string) => new TidingsError('validation_failed', `Invalid contextKeys: ${message}`, { issues: [{ path: 'contextKeys', message }] });

/**
 * Novu's `contextKeys` (`['tenant:acme', 'app:jira']`; one empty key: messages of no context) as the
 * contexts a filter names; null when none are given (every message).
 */
export function contextOfKeys(keys: readonly string[] | undefined): Record<string, string> | null {
  if (keys === undefined || keys.length === 0) return null;
  if (keys.length === 1 && keys[0] === '') return {};
  const context: Record<string, string> = {};
  for (const key of keys) {
    const at = key.indexOf(':');
    if (at <= 0 || at === key.length - 1) throw refusedKeys(`"${key}" is not a context key (type:id)`);
    const type = key.slice(0, at);
    if (type in context) throw refusedKeys(`name the type "${type}" once`);
    context[type] = key.slice(at + 1);
  }
  return context;
}

/**
 * `@novu/api` 3.x's `subscribers.notifications` (`/v2/subscribers/:subscriberId/notifications`):
 * the Inbox's notification routes for a server holding an API key, on the subscriber the path names.
 * `contextKeys` (in the query, or the body of a bulk change) scopes them to exactly those contexts.
 */
export function notificationsV2Routes(clock: Clock, maxSnoozeDurationHours: number) {
  const router = new Hono<AppEnv>();
  notificationRoutes(router, {
    base: '/v2/subscribers/:subscriberId/notifications',
    async scopeOf(c: Context<AppEnv>, body: unknown) {
      const tidings = c.get('tidings');
      const subscriberId = checkedParams({ subscriberId: c.req.param('subscriberId') ?? '' })['subscriberId']!;
      const subscriber = await tidings.subscribers.get(subscriberId);
      if (!subscriber) throw notFound('Subscriber', subscriberId);
      const named = (body as { contextKeys?: unknown } | undefined)?.contextKeys;
      if (named !== undefined && (!Array.isArray(named) || !named.every((key) => typeof key === 'string'))) throw refusedKeys('must be a list of type:id keys');
      const context = contextOfKeys((named as string[] | undefined) ?? c.req.queries('contextKeys'));
      return { tidings, subscriber, subscriberId, ...(context !== null && { context }) };
    },
    deleteOne: '/:id',
    action: { complete: '/:id/actions/:actionType/complete', revert: '/:id/actions/:actionType/revert', typeOf: (c) => c.req.param('actionType')! },
    clock,
    maxSnoozeDurationHours,
  });
  return router;
}
