// The storage conformance suite: every backend runs it under vitest (an optional peer dependency of
// @tidings/core, needed only here).
export { describeStorage, type ConformancePart, type StorageUnderTest, type SuiteContext } from './testing/describe-storage.js';
