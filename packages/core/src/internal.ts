// For Tidings' own storage adapters, benchmark and tools: building blocks that are not part of the
// app-facing API of `@tidings/core` and may change between minor versions.
export { wrapRepositories } from './wrap-repositories.js';
export { newId, newTransactionId } from './ids.js';
export { mergeSubscriber } from './subscribers/merge-subscriber.js';
export { upsertSubscribers } from './subscribers/upsert-subscribers.js';
export { walkSteps, type WalkInput, type WalkResult, type TraceEntry, type Delivery } from './trigger/walk-steps.js';
