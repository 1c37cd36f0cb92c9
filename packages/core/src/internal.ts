// For Tidings' own storage adapters, benchmark and tools: building blocks that are not part of the
// app-facing API of `@tidings/core` and may change between minor versions.
export { wrapRepositories } from './wrap-repositories.js';
export { newId, newTransactionId } from './ids.js';
export { mergeSubscriber } from './subscribers/merge-subscriber.js';
export { upsertSubscribers } from './subscribers/upsert-subscribers.js';
export { stepListWalker, walkSteps } from './walk/step-list-walker.js';
export type { Walker, WalkInput, WalkResult, WalkSubject, Delivery } from './walk/walker.js';
export { joinDigest, touchDigestKey } from './digests/digest-rules.js';
export { HOPELESS_AFTER } from './engine/render-memo.js';
export { byteOrder, findRecords, recordMeets, recordOrder, storedRecord } from './records/record-match.js';
export { recordRepositories, storageRepositories, type KernelRepositories, type RecordRepositories } from './records/record-repositories.js';
