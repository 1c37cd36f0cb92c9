import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { FAULT_SCENARIOS, type FaultScenario } from '../fault-scenarios.js';
import type { FaultMode } from '../faulty-storage.js';
import { runScenario, type ScenarioRun } from '../run-under-fault.js';
import type { SuiteContext } from '../storage-under-test.js';

const MODES: readonly FaultMode[] = ['throw', 'commit-then-throw'];

/** Further runs a multi-process storage gets to reach a fault position its run fell short of. */
const REACH_ATTEMPTS = 3;

/**
 * Injected faults per scenario: every position, unless `TIDINGS_FAULT_RUNS` caps it, or the storage
 * is a multi-process one (a database server, slower per run), where fast-check samples 30 of them.
 */
const budget = (multiProcess: boolean) => Number(process.env['TIDINGS_FAULT_RUNS'] ?? (multiProcess ? 30 : Number.POSITIVE_INFINITY));

/**
 * The fault positions of a scenario's fault-free run. A run with none would inject nothing and pass
 * without proving anything, so the scenario fails instead.
 */
export function faultPositions(scenario: FaultScenario, clean: ScenarioRun): number {
  expect(clean.points.length, `scenario "${scenario.name}" recorded no fault positions`).toBeGreaterThan(0);
  return clean.points.length;
}

export function faultsSuite({ get, name }: SuiteContext & { name: string }): void {
  describe('faults', () => {
    let tried = 0;
    let positions = 0;
    afterAll(() => {
      if (tried > 0) console.info(`[faults] ${name}: ${tried} injected faults tried over ${positions} fault positions of ${FAULT_SCENARIOS.length} scenarios`);
    });
    for (const scenario of FAULT_SCENARIOS) {
      it(`faults — ${scenario.name}: any single fault, then the engine's own recovery, ends as a fault-free run does`, { timeout: 240_000 }, async () => {
        const storage = get();
        let runs = 0;
        const env = () => `faults-${runs++}`;
        const clean = await runScenario(storage, env(), scenario, null);
        const total = faultPositions(scenario, clean);
        positions += total * MODES.length;
        const all = total * MODES.length;
        const check = async (at: number, mode: FaultMode) => {
          // On a storage several processes share, the job runner's claims interleave with its batches'
          // commits as the server's answers come back, so a run may make a few calls fewer than the
          // fault-free one did: a fault past a run's last call is tried again in a new run.
          let run = await runScenario(storage, env(), scenario, { at, mode });
          for (let again = 0; run.fired === null && storage.capabilities.multiProcess && again < REACH_ATTEMPTS; again++) run = await runScenario(storage, env(), scenario, { at, mode });
          expect(run.fired, `fault #${at} (${mode}) at ${clean.points[at]} fired`).not.toBeNull();
          expect(run.state, `after fault #${at} (${mode}) at ${clean.points[at]}`).toEqual(clean.state);
          tried++;
        };
        const limit = budget(storage.capabilities.multiProcess);
        if (all <= limit) {
          for (let at = 0; at < total; at++) for (const mode of MODES) await check(at, mode);
          return;
        }
        await fc.assert(fc.asyncProperty(fc.nat({ max: total - 1 }), fc.constantFrom(...MODES), check), { numRuns: limit });
      });
    }
  });
}
