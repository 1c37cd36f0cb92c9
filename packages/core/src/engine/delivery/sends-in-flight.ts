import { DEFAULT_MAX_IN_FLIGHT, type Integration } from '../../schemas/index.js';
import { lanes, type Lanes } from '../runtime/lanes.js';

/**
 * How many provider calls each integration has in flight in this process: at most its `maxInFlight`
 * (DEFAULT_MAX_IN_FLIGHT when unset), the rest waiting first come, first served. Process-local and
 * kept nowhere: each engine has its own.
 */
export interface SendsInFlight {
  /** Waits for one of the integration's places; the function returned gives it back (once). */
  take(integration: Pick<Integration, '_environmentId' | '_id' | 'maxInFlight'>): Promise<() => void>;
}

export function sendsInFlight(): SendsInFlight {
  const bounds = new Map<string, { readonly limit: number; readonly lanes: Lanes }>();
  /**
   * The integration's lanes at its current bound. A changed bound gets new lanes: the calls holding a
   * place of the old ones give it back there, so for a moment both bounds are in use.
   */
  const lanesOf = (integration: Pick<Integration, '_environmentId' | '_id' | 'maxInFlight'>): Lanes => {
    const key = `${integration._environmentId}:${integration._id}`;
    const limit = integration.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
    const known = bounds.get(key);
    if (known?.limit === limit) return known.lanes;
    const fresh = { limit, lanes: lanes(limit) };
    bounds.set(key, fresh);
    return fresh.lanes;
  };
  return {
    async take(integration) {
      const held = lanesOf(integration);
      await held.take();
      let given = false;
      return () => {
        if (given) return;
        given = true;
        held.give();
      };
    },
  };
}
