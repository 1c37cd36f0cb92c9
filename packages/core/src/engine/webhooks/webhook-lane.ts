import { circuitAfter, circuitAllows, CLOSED, type CircuitPolicy, type CircuitState } from '../../integrations/circuit.js';
import type { EngineContext } from '../context.js';

/** Deliveries one process sends to one endpoint at once; more wait a second for their turn. */
export const WEBHOOK_ENDPOINT_CONCURRENCY = 4;
/** How long a delivery over WEBHOOK_ENDPOINT_CONCURRENCY waits before it is tried again (not an attempt). */
export const WEBHOOK_TURN_WAIT_MS = 1_000;
/** Per endpoint and process: failed attempts in a row that open its circuit, and how long it then stays open. */
export const WEBHOOK_CIRCUIT: CircuitPolicy = { failures: 5, openMs: 60_000 };

/** What the webhook lane of one engine keeps per endpoint: sends in flight and its circuit. */
interface LaneState {
  readonly inFlight: Map<string, number>;
  readonly circuits: Map<string, CircuitState>;
}

const states = new WeakMap<EngineContext, LaneState>();

function stateOf(ctx: EngineContext): LaneState {
  let state = states.get(ctx);
  if (!state) states.set(ctx, (state = { inFlight: new Map(), circuits: new Map() }));
  return state;
}

/** Whether a delivery to the endpoint may be sent now, or until when it waits (its circuit is open, or its turn has not come). */
export function endpointTurn(ctx: EngineContext, endpointId: string, now: number): { go: true; done: (outcome: 'success' | 'failure') => void } | { go: false; until: number; why: string } {
  const state = stateOf(ctx);
  const circuit = circuitAllows(state.circuits.get(endpointId) ?? CLOSED, now);
  if (!circuit.allowed) return { go: false, until: circuit.until, why: 'the endpoint failed too often in a row: its circuit is open' };
  const busy = state.inFlight.get(endpointId) ?? 0;
  if (busy >= WEBHOOK_ENDPOINT_CONCURRENCY) return { go: false, until: now + WEBHOOK_TURN_WAIT_MS, why: `${busy} deliveries to the endpoint are in flight` };
  state.inFlight.set(endpointId, busy + 1);
  let settled = false;
  return {
    go: true,
    done(outcome) {
      if (settled) return;
      settled = true;
      const left = (state.inFlight.get(endpointId) ?? 1) - 1;
      if (left <= 0) state.inFlight.delete(endpointId);
      else state.inFlight.set(endpointId, left);
      state.circuits.set(endpointId, circuitAfter(state.circuits.get(endpointId) ?? CLOSED, outcome, ctx.clock.now().getTime(), WEBHOOK_CIRCUIT));
    },
  };
}
