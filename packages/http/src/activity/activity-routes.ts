import { htmlToText, notFound, renderEmailBody } from '@tidings/core/internal';
import { Hono } from 'hono';
import type { AppEnv } from '../context.js';
import { checkedParams } from '../params.js';
import { listActivity } from './activity-list.js';
import { ACTIVITY_LIST_KEYS, activityQuerySchema, explainQuerySchema, jobsQuerySchema, parseQuery } from './activity-query.js';

/**
 * "Knowing what happened": Novu's activity list, why each step of a trigger did what it did, and what
 * is still to happen. Mounted after the API-key check (`app.route('/', activityRoutes())`); they read
 * repeated query parameters (`?channels=email&channels=sms`), which the route table's handlers do not
 * see, so they are a router of their own.
 */
export function activityRoutes() {
  const router = new Hono<AppEnv>();

  /** Novu's activity list: `{ data, page, pageSize, hasMore }`, one item per notification and subscriber. */
  router.get('/v1/notifications', async (c) => {
    const query = parseQuery(c.req, activityQuerySchema, ACTIVITY_LIST_KEYS);
    return c.json(await listActivity(c.get('tidings'), query));
  });

  /** The decision records of a trigger, oldest first: `{ data: DecisionRecord[] }`; 404 for an unknown transaction. */
  router.get('/v1/notifications/:transactionId/explain', async (c) => {
    const { transactionId } = checkedParams({ transactionId: c.req.param('transactionId') });
    const { subscriberId } = parseQuery(c.req, explainQuerySchema);
    const tidings = c.get('tidings');
    if (!(await tidings.activity.notification(transactionId!))) throw notFound('Transaction', transactionId!);
    return c.json({ data: await tidings.explain(transactionId!, subscriberId) });
  });

  /** Pending jobs and open digests, optionally of one subscriber or trigger: `{ data: { jobs, digests } }`. */
  router.get('/v1/jobs', async (c) => {
    const { subscriberId, transactionId } = parseQuery(c.req, jobsQuerySchema);
    const pending = await c.get('tidings').pending({ ...(subscriberId !== undefined && { subscriberId }), ...(transactionId !== undefined && { transactionId }) });
    return c.json({ data: pending });
  });

  /**
   * An email message as sent: `{ data: { subject, html, text, preheader, layoutId } }` (the text part
   * made from the HTML as the send made it); 404 for an unknown message or one that is not an email.
   */
  router.get('/v1/subscribers/:subscriberId/messages/:messageId/email', async (c) => {
    const { subscriberId, messageId } = checkedParams({ subscriberId: c.req.param('subscriberId'), messageId: c.req.param('messageId') });
    const message = await c.get('tidings').messages.get(subscriberId!, messageId!);
    if (!message || message.channel !== 'email') throw notFound('Email message', messageId!);
    const html = message.html ?? renderEmailBody(message.content).html;
    return c.json({ data: { subject: message.subject ?? '', html, text: htmlToText(html), preheader: message.preheader ?? null, layoutId: message.layoutId ?? null } });
  });

  return router;
}
