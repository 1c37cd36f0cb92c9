/**
 * A circuit breaker per integration (DESIGN §8, failover): after `failures` consecutive retryable
 * failures the circuit opens and the integration is passed over for `openMs`; then it is half-open:
 * the next send is tried, a success closes it, a failure opens it again. Pure: the engine keeps the
 * states and passes its clock's time.
 */
export interface CircuitPolicy {
  /** Consecutive retryable failures that open the circuit. */
  readonly failures: number;
  /** How long an open circuit passes the integration over, in ms. */
  readonly openMs: number;
}

export interface CircuitState {
  readonly consecutiveFailures: number;
  /** While set and in the future, the integration is passed over. */
  readonly openUntil: number | null;
}

export const CLOSED: CircuitState = { consecutiveFailures: 0, openUntil: null };

/** Whether a send may be tried now; an open circuit says until when it is passed over. */
export function circuitAllows(state: CircuitState, now: number): { allowed: true } | { allowed: false; until: number } {
  return state.openUntil !== null && now < state.openUntil ? { allowed: false, until: state.openUntil } : { allowed: true };
}

/** The state after a send: a success closes the circuit; a retryable failure counts, and opens it at the threshold. */
export function circuitAfter(state: CircuitState, outcome: 'success' | 'failure', now: number, policy: CircuitPolicy): CircuitState {
  if (outcome === 'success') return CLOSED;
  const consecutiveFailures = state.consecutiveFailures + 1;
  return { consecutiveFailures, openUntil: consecutiveFailures >= policy.failures ? now + policy.openMs : null };
}
