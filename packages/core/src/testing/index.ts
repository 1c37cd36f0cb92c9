// What tests of an app need, without a test runner: a manual clock, record fixtures, and the fault
// wrapper with its scenarios. The storage conformance suite, which needs vitest, is
// `@tidings/core/conformance`.
export { manualClock, type ManualClock } from '../clock.js';
export * as fixtures from './fixtures.js';
export { faultyStorage, InjectedFault, type FaultyStorage, type FaultPlan, type FaultMode } from './faulty-storage.js';
export { runScenario, storedState, type ScenarioRun, type StoredState } from './run-under-fault.js';
export { FAULT_SCENARIOS, type FaultScenario, type ScenarioStep } from './fault-scenarios.js';
