import { explainFilters, firstFailure, type PartTrace } from '../filters/evaluate.js';
import type { Channel, Integration, Tenant } from '../schemas/index.js';

export interface IntegrationChoice {
  readonly integration: Integration | null;
  /**
   * Every integration that may deliver, in the order to try them (`integration` first): the ones
   * whose conditions pass, the primary, then the other active ones, oldest first. A trigger that
   * names an integration gets that one alone.
   */
  readonly order: readonly Integration[];
  readonly reason: string;
  /** Integrations passed over because their conditions failed, with the first failing part. */
  readonly rejected: { identifier: string; failed: PartTrace | null }[];
}

/**
 * Which integration delivers a channel step (DESIGN §8): the one the trigger names for the channel
 * (`overrides.<channel>.integrationIdentifier`, as Novu allows) when it is active; else the first
 * active one whose `conditions` pass for the trigger's tenant, else the primary, else the oldest
 * active one. Integrations whose conditions fail are never chosen by rule. Pure: `integrations` are
 * the environment's, oldest first.
 */
export function selectIntegration(integrations: readonly Integration[], channel: Channel, tenant: Tenant | null, named?: string): IntegrationChoice {
  if (named !== undefined) {
    const integration = integrations.find((i) => i.identifier === named && i.channel === channel && i.active && !i.deleted) ?? null;
    const reason = integration ? `the trigger's overrides name "${named}"` : `the trigger's overrides name "${named}", which is not an active ${channel} integration`;
    return { integration, order: integration ? [integration] : [], reason, rejected: [] };
  }
  const context = { tenant: tenant ? { identifier: tenant.identifier, name: tenant.name, data: tenant.data } : undefined };
  const rejected: IntegrationChoice['rejected'] = [];
  const usable: Integration[] = [];
  const conditional: Integration[] = [];
  for (const integration of integrations) {
    if (!integration.active || integration.deleted || integration.channel !== channel) continue;
    if (integration.conditions.length === 0) {
      usable.push(integration);
      continue;
    }
    const trace = explainFilters(integration.conditions, context);
    if (!trace.passed) rejected.push({ identifier: integration.identifier, failed: firstFailure(trace) });
    else conditional.push(integration);
  }
  const primary = usable.find((i) => i.primary);
  const order = [...conditional, ...(primary ? [primary] : []), ...usable.filter((i) => i !== primary)];
  const [first] = order;
  if (!first) return { integration: null, order, reason: `no active ${channel} integration${rejected.length ? ' whose conditions pass' : ''}`, rejected };
  const reason =
    first === conditional[0]
      ? `conditions of "${first.identifier}" passed for the tenant`
      : first === primary
        ? `"${first.identifier}" is the primary ${channel} integration`
        : `"${first.identifier}" is the ${usable.length === 1 ? 'only' : 'oldest'} active ${channel} integration`;
  return { integration: first, order, reason, rejected };
}
