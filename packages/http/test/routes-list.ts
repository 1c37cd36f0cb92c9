/** Every route of the API, for the fuzz and poison tests. */
export const ROUTES: [string, string][] = [
  ['PATCH', '/v2/subscribers/{a}/preferences'],
  ['POST', '/v1/subscribers/{a}/messages/mark-as'],
  ['POST', '/v1/subscribers/{a}/messages/{b}/actions/{c}'],
  ['GET', '/v1/integrations/active'],
  ['GET', '/v1/topics/{a}/subscribers/{b}'],
  ['POST', '/v1/events/trigger/bulk'],
  ['POST', '/v1/events/trigger'],
  ['DELETE', '/v1/events/trigger/{a}'],
  ['POST', '/v1/subscribers'],
  ['GET', '/v1/subscribers/{a}'],
  ['PUT', '/v1/subscribers/{a}'],
  ['GET', '/v1/subscribers/{a}/notifications/feed'],
  ['POST', '/v1/topics'],
  ['POST', '/v1/topics/{a}/subscribers'],
  ['POST', '/v1/topics/{a}/subscribers/removal'],
  ['POST', '/v1/integrations'],
  ['POST', '/v1/tenants'],
  ['POST', '/v1/workflows'],
  ['GET', '/v1/workflows/{a}'],
  ['POST', '/v1/subscribers/{a}/messages/{b}/snooze'],
  ['POST', '/v1/subscribers/{a}/messages/{b}/unsnooze'],
  ['POST', '/v1/subscribers/{a}/messages/{b}/archive'],
  ['POST', '/v1/subscribers/{a}/messages/{b}/unarchive'],
  ['GET', '/v1/subscribers/{a}/notifications/counts'],
  ['GET', '/v1/subscribers/{a}/notifications/unseen'],
  ['GET', '/v2/subscribers/{a}/preferences'],
  ['DELETE', '/v1/subscribers/{a}'],
];
// GET /v1/subscribers/{id}/events is left out: a valid request opens a stream that never ends.

// Domain tables only: idempotency records are request bookkeeping and may change.
export const TABLES = ['tidings_workflows', 'tidings_subscribers', 'tidings_topics', 'tidings_topic_members', 'tidings_tenants', 'tidings_integrations', 'tidings_preferences', 'tidings_notifications', 'tidings_jobs', 'tidings_messages', 'tidings_digests'];
