import { memoryStorage } from '@tidings/memory';
import { describe, expect, it } from 'vitest';
import { FAULT_SCENARIOS, runScenario, type FaultScenario } from '../src/testing/index.js';
import { faultPositions } from '../src/testing/suite/faults.js';

describe('the fault suite refuses a scenario that records no fault positions', () => {
  it('fails, naming the scenario, when the fault-free run made no storage call', async () => {
    // No steps: nothing runs once the fault is armed, so no storage call could fail.
    const idle: FaultScenario = { name: 'idle', subscribers: [], transactions: [], setup: async () => undefined, steps: [] };
    const clean = await runScenario(memoryStorage(), 'positions-idle', idle, null);
    expect(clean.points).toEqual([]);
    expect(() => faultPositions(idle, clean)).toThrow('scenario "idle" recorded no fault positions');
  });

  it('counts the positions of a scenario that has some', async () => {
    const scenario = FAULT_SCENARIOS[0]!;
    const clean = await runScenario(memoryStorage(), 'positions-first', scenario, null);
    expect(faultPositions(scenario, clean)).toBe(clean.points.length);
    expect(clean.points.length).toBeGreaterThan(0);
  });
});
