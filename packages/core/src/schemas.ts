// The zod schemas of every shape that crosses a boundary, with the types inferred from them: for apps
// that validate input themselves before calling the engine (the engine validates it again).
export * from './schemas/index.js';
export { markAsInputSchema, markFlagsInputSchema, actionInputSchema, messageFilterSchema, feedQuerySchema, snoozeInputSchema } from './engine/inbox/messages-api.js';
export type { MarkAsInput, MarkFlagsInput, ActionInput, MessageFilterInput, FeedQueryInput, SnoozeInput } from './engine/inbox/messages-api.js';
export { notificationPageQuerySchema, subscriberMessagesQuerySchema } from './engine/activity/activity-api.js';
export { idempotencyBeginSchema, idempotencyCompleteSchema } from './engine/idempotency/idempotency-api.js';
export { idPageQuerySchema } from './engine/catalog/people-api.js';
