import { TidingsError, type Clock, type Message, type Subscriber, type Tidings } from '@tidings/core';
import type { Context, Hono } from 'hono';
import { parseBody } from '../body.js';
import type { AppEnv } from '../context.js';
import { bodyFilter, countFilters, listFilter, parseJsonParameter } from './inbox-filters.js';
import { inboxNotification } from './inbox-shapes.js';

/** Whose notifications a request reads: the engine, the subscriber, and the contexts it is scoped to (none: every message). */
export interface NotificationScope {
  readonly tidings: Tidings;
  readonly subscriber: Subscriber;
  readonly subscriberId: string;
  readonly context?: Readonly<Record<string, string>>;
}

/** Where one family of notification routes lives: the Inbox's (`/v1/inbox/notifications`, a session) or Novu 3.x's server copies (`/v2/subscribers/:subscriberId/notifications`, an API key). */
export interface NotificationRouteSet {
  readonly base: string;
  /** The scope of a request; `body` is its parsed body (the bulk routes name contexts there). */
  scopeOf(c: Context<AppEnv>, body: unknown): Promise<NotificationScope>;
  /** The route that deletes one notification, below `base`. */
  readonly deleteOne: string;
  /** The routes that complete and revert a notification's action, below `base`, and where the action's type is read. */
  readonly action: { readonly complete: string; readonly revert: string; typeOf(c: Context<AppEnv>, body: unknown): string };
  readonly clock: Clock;
  readonly maxSnoozeDurationHours: number;
}

const workflowsById = async (tidings: Tidings) => new Map((await tidings.workflows.list()).map((w) => [w._id, w] as const));
const withContext = <T extends object>(filter: T, scope: NotificationScope) => (scope.context === undefined ? filter : { ...filter, context: scope.context });

/**
 * The notification routes Novu's Inbox and Novu 3.x's server API share: the feed, counts, the
 * flags, archive, snooze, actions and the bulk changes, each answered as Novu's InboxNotificationDto.
 * A scope with a context reads and changes only that context's messages.
 */
export function notificationRoutes(app: Hono<AppEnv>, set: NotificationRouteSet): void {
  const { base, clock } = set;
  const body = (c: Context<AppEnv>) => parseBody(c.get('bodyText'), c.req.header('content-type'));
  const scope = (c: Context<AppEnv>) => set.scopeOf(c, body(c));
  const noContent = (c: Context<AppEnv>) => c.body(null, 204);

  app.get(base, async (c) => {
    const at = await scope(c);
    const one = (key: string) => c.req.query(key);
    const filter = listFilter(c.req.queries());
    const limit = one('limit') === undefined ? 10 : Number(one('limit'));
    const offset = one('offset') === undefined ? undefined : Number(one('offset'));
    const page = await at.tidings.messages.feed(at.subscriberId, withContext({
      ...filter,
      archived: filter.archived ?? false,
      snoozed: filter.snoozed ?? false,
      limit,
      ...(offset !== undefined && { offset }),
      ...(one('after') && { after: one('after')! }),
    }, at));
    const workflows = await workflowsById(at.tidings);
    const now = clock.now().toISOString();
    return c.json({ data: page.items.map((m) => inboxNotification(m, at.subscriber, workflows, now)), hasMore: page.nextCursor !== null, filter });
  });

  app.get(`${base}/count`, async (c) => {
    const at = await scope(c);
    const raw = c.req.query('filters');
    const filters = raw === undefined ? [{}] : parseJsonParameter(raw, 'filters');
    if (!Array.isArray(filters)) throw new TidingsError('validation_failed', 'filters must be a JSON array', { issues: [{ path: 'filters', message: 'must be a JSON array' }] });
    const counted = await at.tidings.messages.count(at.subscriberId, countFilters(filters).map((filter) => withContext(filter, at)));
    // Each count carries the filter exactly as it came: the client keys its badges by it.
    return c.json({ data: counted.map((entry, i) => ({ count: entry.count, filter: filters[i] })) });
  });

  /** One message changed by `change`, answered as Novu's InboxNotificationDto. */
  const single = (change: (tidings: Tidings, subscriberId: string, id: string, c: Context<AppEnv>) => Promise<Message | Message[]>) => async (c: Context<AppEnv>) => {
    const { tidings, subscriber, subscriberId } = await scope(c);
    const changed = await change(tidings, subscriberId, c.req.param('id')!, c);
    const message = Array.isArray(changed) ? changed[0]! : changed;
    return c.json({ data: inboxNotification(message, subscriber, await workflowsById(tidings), clock.now().toISOString()) });
  };
  app.patch(`${base}/:id/read`, single((t, s, id) => t.messages.markAs(s, { messageId: id, markAs: 'read' })));
  app.patch(`${base}/:id/unread`, single((t, s, id) => t.messages.markAs(s, { messageId: id, markAs: 'unread' })));
  app.patch(`${base}/:id/archive`, single((t, s, id) => t.messages.archive(s, [id])));
  app.patch(`${base}/:id/unarchive`, single((t, s, id) => t.messages.unarchive(s, [id])));
  app.patch(`${base}/:id/unsnooze`, single((t, s, id) => t.messages.unsnooze(s, id)));
  app.patch(
    `${base}/:id/snooze`,
    single((t, s, id, c) => {
      const until = (body(c) as { snoozeUntil?: unknown } | undefined)?.snoozeUntil;
      if (typeof until === 'string' && Date.parse(until) - clock.now().getTime() > set.maxSnoozeDurationHours * 3_600_000) {
        throw new TidingsError('validation_failed', `snoozeUntil must be within ${set.maxSnoozeDurationHours} hours`, { issues: [{ path: 'snoozeUntil', message: `must be within ${set.maxSnoozeDurationHours} hours` }] });
      }
      return t.messages.snooze(s, id, { until: until as string });
    }),
  );
  app.patch(`${base}${set.action.complete}`, single((t, s, id, c) => t.messages.action(s, id, set.action.typeOf(c, body(c)), { status: 'done' })));
  app.patch(`${base}${set.action.revert}`, single((t, s, id, c) => t.messages.action(s, id, set.action.typeOf(c, body(c)), { status: 'pending' })));

  app.post(`${base}/seen`, async (c) => {
    const at = await scope(c);
    const { notificationIds, contextKeys: _named, ...rest } = (body(c) ?? {}) as { notificationIds?: unknown; contextKeys?: unknown };
    if (notificationIds !== undefined) await at.tidings.messages.markSeen(at.subscriberId, { messageIds: notificationIds as string[] });
    else await at.tidings.messages.markSeen(at.subscriberId, { filter: withContext(bodyFilter(rest), at) });
    return noContent(c);
  });
  const bulk = (run: (tidings: Tidings, subscriberId: string, filter: ReturnType<typeof bodyFilter>) => Promise<unknown>) => async (c: Context<AppEnv>) => {
    const at = await scope(c);
    const { contextKeys: _named, ...rest } = (body(c) ?? {}) as { contextKeys?: unknown };
    await run(at.tidings, at.subscriberId, withContext(bodyFilter(rest), at));
    return noContent(c);
  };
  app.post(`${base}/read`, bulk((t, s, f) => t.messages.readAll(s, f)));
  app.post(`${base}/archive`, bulk((t, s, f) => t.messages.archiveAll(s, f)));
  app.post(`${base}/read-archive`, bulk((t, s, f) => t.messages.archiveRead(s, f)));
  app.post(`${base}/delete`, bulk((t, s, f) => t.messages.deleteAll(s, f)));
  app.delete(`${base}${set.deleteOne}`, async (c) => {
    const { tidings, subscriberId } = await scope(c);
    await tidings.messages.delete(subscriberId, c.req.param('id')!);
    return noContent(c);
  });
}
