export { createHttpApp, type HttpApp } from './app.js';
export type { HttpAppOptions, MetricsOptions } from './context.js';
export { HttpError, toHttp, errorBody } from './errors.js';
export { integrationToWire } from './wire.js';
export { activityApp, type ActivityAppOptions } from './activity/activity-app.js';
export type { InboxOptions } from './inbox/inbox-options.js';
export type { InboxSockets } from './inbox/inbox-sockets.js';
