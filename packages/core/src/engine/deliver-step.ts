import { ProviderError, type Provider } from '../delivery/provider.js';
import { resolveRecipient } from '../delivery/recipient.js';
import { selectIntegration } from '../integrations/select-integration.js';
import type { Integration, JsonObject, Message, Notification, Subscriber, Tenant } from '../schemas/index.js';
import { renderEmailBody } from '../templates/email-html.js';
import type { TraceEntry } from '../walk/trace.js';
import type { Delivery } from '../walk/walker.js';
import type { EngineOptions } from './context.js';

/**
 * What delivering one channel step came to: a message to store, or a failure worth another attempt,
 * with the message to store instead when the job has no attempt left (the retry policy decides).
 */
export type StepSent =
  | { kind: 'message'; message: Message; note: Partial<TraceEntry>; failure?: string; notSent?: string }
  | { kind: 'retry'; error: string; retryAfterMs?: number; note: Partial<TraceEntry>; final: Extract<StepSent, { kind: 'message' }> };

export interface DeliveryContext {
  readonly subscriber: Subscriber;
  readonly tenant: Tenant | null;
  readonly integrations: readonly Integration[];
  readonly notification: Notification;
}

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ProviderError(`the provider did not answer within ${ms} ms`, { retryable: true, code: 'timeout' })), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Delivers channel steps: in_app needs nothing more; other channels pick the integration, resolve the
 * subscriber's address and call the provider. A provider may be called again for the same message
 * (a retry, or a re-run after a crash): `messageId` is the same each time, for providers that dedupe.
 */
export function stepDeliverer(providers: ReadonlyMap<string, Provider>, options: Pick<EngineOptions, 'providerTimeoutMs'>) {
  return async function deliver(delivery: Delivery, base: Message, context: DeliveryContext): Promise<StepSent> {
    if (delivery.channel === 'in_app') return { kind: 'message', message: base, note: {} };
    const warning = (reason: string, integration?: Integration): StepSent => ({
      kind: 'message',
      message: { ...base, ...(integration && { providerId: integration.providerId }), status: 'warning', deliveredAt: [], errorText: reason },
      note: { decision: 'not_sent', reason, ...(integration && { integration: integration.identifier }) },
      notSent: reason,
    });
    const channelOverrides = context.notification.overrides[delivery.channel];
    const named = typeof channelOverrides === 'object' && channelOverrides !== null ? (channelOverrides as { integrationIdentifier?: unknown }).integrationIdentifier : undefined;
    const choice = selectIntegration(context.integrations, delivery.channel, context.tenant, typeof named === 'string' ? named : undefined);
    const integration = choice.integration;
    if (!integration) return warning(choice.reason);
    const provider = providers.get(`${delivery.channel}:${integration.providerId}`);
    if (!provider) return warning(`${choice.reason}; no provider is registered for "${integration.providerId}"`, integration);
    const recipient = resolveRecipient(context.subscriber, delivery.channel, integration);
    if (!recipient.ok) return warning(recipient.reason, integration);
    const note = { integration: integration.identifier, reason: choice.reason };
    const body =
      typeof base.content === 'string' && delivery.channel !== 'email'
        ? { content: base.content }
        : (() => {
            const { html, text } = renderEmailBody(base.content);
            return { content: text, html };
          })();
    const overrides = context.notification.overrides[integration.providerId];
    try {
      const result = await withTimeout(
        provider.send(
          {
            messageId: base._id,
            transactionId: base.transactionId,
            channel: delivery.channel,
            to: recipient.to,
            ...body,
            ...(base.subject !== undefined && { subject: base.subject }),
            ...(base.title !== undefined && { title: base.title }),
            payload: base.payload,
            overrides: typeof overrides === 'object' && overrides !== null ? (overrides as JsonObject) : {},
          },
          integration.credentials,
        ),
        options.providerTimeoutMs,
      );
      const to = recipient.to;
      const address = { ...(to.email && { email: to.email }), ...(to.phone && { phone: to.phone }), ...(to.webhookUrl && { directWebhookUrl: to.webhookUrl }), ...(to.deviceTokens && { deviceTokens: [...to.deviceTokens] }) };
      return {
        kind: 'message',
        message: { ...base, ...address, providerId: integration.providerId, status: 'sent', deliveredAt: [base.createdAt] },
        note: { ...note, reason: `sent by "${integration.identifier}"${result.id ? ` as ${result.id}` : ''}` },
      };
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      const retryable = error instanceof ProviderError ? error.retryable : true;
      const errorId = error instanceof ProviderError ? (error.options.code ?? (error.options.status ? `http_${error.options.status}` : 'provider_error')) : 'provider_error';
      const final = {
        kind: 'message' as const,
        message: { ...base, providerId: integration.providerId, status: 'error' as const, deliveredAt: [], errorId, errorText: text },
        note: { ...note, reason: `failed: ${text}` },
        failure: text,
      };
      const retryAfterMs = error instanceof ProviderError ? error.options.retryAfterMs : undefined;
      return retryable ? { kind: 'retry', error: text, ...(retryAfterMs !== undefined && { retryAfterMs }), note: { ...note, reason: `${text}; will retry` }, final } : final;
    }
  };
}
