import { explainFilters, firstFailure, type PartTrace } from '../filters/evaluate.js';
import type { Channel, Integration, Tenant } from '../schemas/index.js';

export interface IntegrationChoice {
  readonly integration: Integration | null;
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
    return { integration, reason, rejected: [] };
  }
  const context = { tenant: tenant ? { identifier: tenant.identifier, name: tenant.name, data: tenant.data } : undefined };
  const rejected: IntegrationChoice['rejected'] = [];
  const usable: Integration[] = [];
  let conditional: Integration | null = null;
  for (const integration of integrations) {
    if (!integration.active || integration.deleted || integration.channel !== channel) continue;
    if (integration.conditions.length === 0) {
      usable.push(integration);
      continue;
    }
    const trace = explainFilters(integration.conditions, context);
    if (!trace.passed) rejected.push({ identifier: integration.identifier, failed: firstFailure(trace) });
    else conditional ??= integration;
  }
  if (conditional) return { integration: conditional, reason: `conditions of "${conditional.identifier}" passed for the tenant`, rejected };
  const primary = usable.find((i) => i.primary);
  if (primary) return { integration: primary, reason: `"${primary.identifier}" is the primary ${channel} integration`, rejected };
  const first = usable[0];
  if (first) return { integration: first, reason: `"${first.identifier}" is the ${usable.length === 1 ? 'only' : 'oldest'} active ${channel} integration`, rejected };
  return { integration: null, reason: `no active ${channel} integration${rejected.length ? ' whose conditions pass' : ''}`, rejected };
}
