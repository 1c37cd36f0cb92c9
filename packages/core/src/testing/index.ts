export { describeStorage, type StorageUnderTest, type SuiteContext } from './describe-storage.js';
export { manualClock, type ManualClock } from '../clock.js';
export * as fixtures from './fixtures.js';
