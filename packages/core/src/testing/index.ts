export { describeStorage, type StorageUnderTest, type SuiteContext } from './describe-storage.js';
export { manualClock, type ManualClock } from '../clock.js';
export * as fixtures from './fixtures.js';
export { faultyStorage, InjectedFault, type FaultyStorage, type FaultPlan, type FaultMode } from './faulty-storage.js';
export { runScenario, storedState, type ScenarioRun, type StoredState } from './run-under-fault.js';
export { FAULT_SCENARIOS, type FaultScenario, type ScenarioStep } from './fault-scenarios.js';
