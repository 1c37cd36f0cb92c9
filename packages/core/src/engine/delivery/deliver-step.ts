import { idempotencyKeyOf } from '../../delivery/idempotency-key.js';
import { emailAddressing } from '../../delivery/email-addressing.js';
import { ProviderError, type EmailAddressing, type Provider, type ProviderRecipient } from '../../delivery/provider.js';
import { resolveRecipient } from '../../delivery/recipient.js';
import { CLOSED, circuitAfter, circuitAllows, type CircuitState } from '../../integrations/circuit.js';
import { selectIntegration } from '../../integrations/select-integration.js';
import type { DeadDeviceTokens } from '../../subscribers/drop-device-tokens.js';
import { attachmentsOf, normalAddress, type Integration, type JsonObject, type Message, type Notification, type Subscriber, type Suppression, type Tenant } from '../../schemas/index.js';
import { renderEmailBody } from '../../templates/email-html.js';
import type { TraceEntry } from '../../walk/trace.js';
import type { Delivery } from '../../walk/walker.js';
import type { EngineOptions } from '../context.js';
import type { CapCheck } from '../frequency/caps.js';
import type { RateSlot } from '../frequency/send-rate.js';
import type { WindowHit } from '../../storage.js';
import { NO_TELEMETRY, type Telemetry } from '../telemetry/telemetry.js';
import { sendProbe } from '../telemetry/send-probe.js';
import { sendsInFlight, type SendsInFlight } from './sends-in-flight.js';

/**
 * How long after a send whose outcome is unknown (see `Provider.idempotent`) its message is sent
 * again, at most once: long enough that a provider slow to answer has long sent it, or its status
 * callback came. One hour, the longest wait of the retry policy (a service's `Retry-After` is capped
 * at it too).
 */
export const UNKNOWN_OUTCOME_RETRY_MS = 3_600_000;

/**
 * What delivering one channel step came to: a message to store, or a failure worth another attempt,
 * with the message to store instead when the job has no attempt left (the retry policy decides), or
 * a send the provider did not answer in time and that cannot be asked again safely (`unknown`: its
 * message, `sent` with `outcome: 'unknown'`, is stored, and sent again at most once, after
 * `UNKNOWN_OUTCOME_RETRY_MS`). Either way, `deadTokens` are the device tokens push services called
 * gone, to remove in the commit.
 */
export type StepSent = (
  | { kind: 'message'; message: Message; note: Partial<TraceEntry>; failure?: string; notSent?: string; capHits?: readonly WindowHit[] }
  | { kind: 'retry'; error: string; retryAfterMs?: number; note: Partial<TraceEntry>; final: Extract<StepSent, { kind: 'message' }> }
  | { kind: 'unknown'; error: string; message: Message; note: Partial<TraceEntry> }
  | { kind: 'defer'; until: Date; reason: string }
) & { deadTokens?: readonly DeadDeviceTokens[] };

/** The dead device tokens an answer (a result or a ProviderError) names, as a phrase for `explain`. */
const deadTokensOf = (answer: unknown): readonly string[] => {
  const tokens = answer instanceof ProviderError ? answer.options.invalidTokens : (answer as { invalidTokens?: readonly string[] } | null)?.invalidTokens;
  return Array.isArray(tokens) ? tokens : [];
};
const removedPhrase = (tokens: readonly string[]) => (tokens.length === 0 ? '' : `; ${tokens.length} device token${tokens.length === 1 ? ' is' : 's are'} gone and removed`);

export interface DeliveryContext {
  readonly subscriber: Subscriber;
  /** Addresses on the suppression list, by `channel\u0000address`. */
  readonly suppressed?: ReadonlyMap<string, Suppression>;
  readonly tenant: Tenant | null;
  readonly integrations: readonly Integration[];
  readonly notification: Notification;
  /** Takes a slot of a rate-limited integration's send rate just before its provider is called. */
  readonly rate?: (integration: Integration, sendId: string) => Promise<RateSlot>;
  /** The caps over this walk's sends; none when absent. */
  readonly caps?: (channel: Message['channel'], messageId: string) => Promise<CapCheck>;
  /**
   * Set by a `tidings.retry` run (its job's id): the sends of a message that failed for good get an
   * idempotency key of their own, since a service that keeps its answer under a key would give the
   * old refusal back.
   */
  readonly sendRound?: string;
  /**
   * No attempt is left after this one: a retryable failure now fails the step for good, so its send
   * is counted as `failed`, not `retry`.
   */
  readonly finalAttempt?: boolean;
}

/**
 * Calls `send` and waits at most `ms` for it: past that the call fails with a retryable `timeout`,
 * and its signal aborts with that error, so the send's work stops (the request in flight is aborted,
 * no further request starts) rather than going on unwatched.
 */
async function withTimeout<T>(send: (signal: AbortSignal) => Promise<T>, ms: number): Promise<T> {
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new ProviderError(`the provider did not answer within ${ms} ms`, { retryable: true, code: 'timeout' });
      abort.abort(error);
      reject(error);
    }, ms);
  });
  try {
    return await Promise.race([send(abort.signal), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whether a failed send may have been sent all the same: the request went and no answer came in
 * time (the engine's `providerTimeoutMs`, or the provider's own request timeout).
 */
const timedOut = (error: unknown): error is ProviderError => error instanceof ProviderError && error.options.code === 'timeout';

/** The addresses a message keeps of the recipient it went to. */
const addressOf = (to: ProviderRecipient) => ({ ...(to.email && { email: to.email }), ...(to.phone && { phone: to.phone }), ...(to.webhookUrl && { directWebhookUrl: to.webhookUrl }), ...(to.deviceTokens && { deviceTokens: [...to.deviceTokens] }) });

/** One integration tried for a step, and how it went: what `explain` lists under the step. */
export interface DeliveryAttempt {
  readonly integration: string;
  readonly outcome: 'sent' | 'failed' | 'passed_over';
  readonly reason: string;
}

/**
 * Delivers channel steps: in_app needs nothing more; other channels go through the channel's
 * integrations in order (see `selectIntegration`): an integration without a provider or an address,
 * or whose circuit is open, is passed over; a retryable failure goes on to the next one at once; a
 * final failure ends the step. A provider may be called again for the same message (a retry, or a
 * re-run after a crash): `messageId` and the send's `idempotencyKey` are the same each time, for
 * providers that dedupe. A send that timed out is cancelled (its signal aborts) and may have been
 * sent: it is not passed on to the next integration; a provider that sends the idempotency key is
 * tried again as after any retryable failure, any other's step comes to `unknown`. Each provider call
 * holds one of its integration's places in flight (`inFlight`, its `maxInFlight`) from before its rate
 * slot to its answer, however it ends.
 */
export function stepDeliverer(providers: ReadonlyMap<string, Provider>, options: Pick<EngineOptions, 'providerTimeoutMs' | 'circuitBreaker'>, now: () => number, telemetry: Telemetry = NO_TELEMETRY, inFlight: SendsInFlight = sendsInFlight()) {
  const circuits = new Map<string, CircuitState>();
  const circuitOf = (integration: Integration) => circuits.get(`${integration._environmentId}:${integration._id}`) ?? CLOSED;
  const record = (integration: Integration, outcome: 'success' | 'failure') => {
    if (options.circuitBreaker) circuits.set(`${integration._environmentId}:${integration._id}`, circuitAfter(circuitOf(integration), outcome, now(), options.circuitBreaker));
  };

  return async function deliver(delivery: Delivery, base: Message, context: DeliveryContext): Promise<StepSent> {
    const capped: CapCheck = (await context.caps?.(delivery.channel, base._id)) ?? { kind: 'send', hits: [] };
    if (capped.kind === 'skip') return notSent(base, capped.reason);
    if (capped.kind === 'defer') return { kind: 'defer', until: capped.until, reason: capped.reason };
    const counted = (sent: StepSent): StepSent => (sent.kind === 'message' && sent.message.status === 'sent' && capped.hits.length > 0 ? { ...sent, capHits: capped.hits } : sent);
    if (delivery.channel === 'in_app') return counted({ kind: 'message', message: base, note: {} });
    const dead: DeadDeviceTokens[] = [];
    const sent = counted(await deliverThrough(delivery, base, context, dead));
    return dead.length > 0 ? { ...sent, deadTokens: dead } : sent;
  };

  async function deliverThrough(delivery: Delivery, base: Message, context: DeliveryContext, dead: DeadDeviceTokens[]): Promise<StepSent> {
    const channelOverrides = context.notification.overrides[delivery.channel];
    const named = typeof channelOverrides === 'object' && channelOverrides !== null ? (channelOverrides as { integrationIdentifier?: unknown }).integrationIdentifier : undefined;
    const choice = selectIntegration(context.integrations, delivery.channel, context.tenant, typeof named === 'string' ? named : undefined);
    const laidOut = delivery.channel === 'email' ? delivery.rendered.email : undefined;
    const body = laidOut
      ? { content: laidOut.text, html: laidOut.html }
      : typeof base.content === 'string' && delivery.channel !== 'email'
        ? { content: base.content }
        : (() => {
            const { html, text } = renderEmailBody(base.content);
            return { content: text, html };
          })();
    const attachments = delivery.channel === 'email' ? attachmentsOf(context.notification.payload, 'email') : [];
    const suppression = suppressionOf(context, delivery.channel);
    if (suppression) return notSent(base, `${suppression.address} is on the suppression list (${suppression.reason}${suppression.detail ? `: ${suppression.detail}` : ''}, since ${suppression.at})`);
    const attempts: DeliveryAttempt[] = [];
    /** The step's reason: what became of the one integration tried, or of each when there were more. */
    const reasonWith = (last: string) => (attempts.length <= 1 ? last : `${choice.reason}; ${attempts.map((a) => `"${a.integration}" ${a.outcome.replace('_', ' ')}: ${a.reason}`).join('; ')}`);
    let retry: { error: unknown; text: string; retryAfterMs?: number; integration: Integration } | null = null;
    /** The message as it stands when a send timed out: it may have been sent (never `error` for that alone). */
    let unsure: Extract<StepSent, { kind: 'message' }> | null = null;
    const idempotencyKey = idempotencyKeyOf(base._environmentId, base._id, context.sendRound);
    let openUntil: number | null = null;
    let passedOver: { reason: string; integration: Integration } | null = null;

    for (const integration of choice.order) {
      const provider = providers.get(`${delivery.channel}:${integration.providerId}`);
      const recipient = provider ? resolveRecipient(context.subscriber, delivery.channel, integration, provider.chatAddress) : null;
      const circuit = options.circuitBreaker ? circuitAllows(circuitOf(integration), now()) : ({ allowed: true } as const);
      const skip = !provider
        ? `${choice.order.length === 1 ? `${choice.reason}; ` : ''}no provider is registered for "${integration.providerId}"`
        : recipient && !recipient.ok
          ? recipient.reason
          : attachments.length > 0 && !provider.attachments
            ? `"${integration.providerId}" does not send attachments, and the trigger attaches ${attachments.length === 1 ? 'a file' : `${attachments.length} files`}`
            : !circuit.allowed
            ? `its circuit is open until ${new Date(circuit.until).toISOString()} after ${options.circuitBreaker ? options.circuitBreaker.failures : 0} failures in a row`
            : null;
      if (skip !== null || !provider || !recipient?.ok) {
        attempts.push({ integration: integration.identifier, outcome: 'passed_over', reason: skip ?? '' });
        if (!circuit.allowed) openUntil = Math.min(openUntil ?? Number.POSITIVE_INFINITY, circuit.until);
        else passedOver ??= { reason: skip ?? '', integration };
        continue;
      }
      const own = context.notification.overrides[integration.providerId];
      let overrides: JsonObject = typeof own === 'object' && own !== null && !Array.isArray(own) ? (own as JsonObject) : {};
      let email: EmailAddressing | undefined;
      let headers: Readonly<Record<string, string>> | undefined;
      if (delivery.channel === 'email') {
        const addressing = emailAddressing(context.notification.overrides, integration.providerId, recipient.to.email ?? '', { ...(laidOut?.cc && { cc: laidOut.cc }), ...(laidOut?.bcc && { bcc: laidOut.bcc }) });
        if (!addressing.ok) {
          // The caller's mistake, the same on every try and through any integration: the step fails.
          const text = `the trigger's email overrides are not valid: ${addressing.reason}`;
          attempts.push({ integration: integration.identifier, outcome: 'failed', reason: text });
          return failed(base, integration, new ProviderError(text, { retryable: false, code: 'invalid_overrides' }), reasonWith(`failed: ${text}`), attempts);
        }
        ({ email, overrides } = addressing);
        // The step's headers, the trigger's over them, one-click unsubscribe's over both.
        const merged = { ...laidOut?.customHeaders, ...addressing.headers, ...laidOut?.headers };
        if (Object.keys(merged).length > 0) headers = merged;
        // The step's or the brand's sender name and Reply-To, unless the trigger's overrides gave them.
        if (laidOut?.senderName && email.senderName === undefined) email = { ...email, senderName: laidOut.senderName };
        if (laidOut?.replyTo && email.replyTo === undefined) email = { ...email, replyTo: laidOut.replyTo };
      }
      // The place in line before the rate slot: the slot counts a send when it is taken, so one taken
      // while waiting for a place would count a send before it goes, and sends waiting in line would
      // fill the window. Holding a place through the slot's short transaction costs little.
      const release = await inFlight.take(integration);
      try {
        const slot = (await context.rate?.(integration, `${base._id}:${attempts.length}:${now()}`)) ?? { ok: true };
        if (!slot.ok) return { kind: 'defer', until: slot.until, reason: slot.reason };
        const input = {
          messageId: base._id,
          transactionId: base.transactionId,
          channel: delivery.channel,
          to: recipient.to,
          ...body,
          ...(base.subject !== undefined && { subject: base.subject }),
          ...(base.title !== undefined && { title: base.title }),
          payload: base.payload,
          overrides,
          ...(email && { email }),
          ...(headers && { headers }),
          ...(attachments.length > 0 && { attachments }),
          ...(delivery.channel === 'push' && base.data !== undefined && { data: base.data }),
        };
        const probe = sendProbe(telemetry, integration, delivery.channel);
        try {
          const send = (signal: AbortSignal) => provider.send(input, integration.credentials, { signal, idempotencyKey });
          const result = await withTimeout((signal) => (probe ? probe.run(() => send(signal)) : send(signal)), options.providerTimeoutMs);
          probe?.end('sent');
          record(integration, 'success');
          const removed = noteDead(integration, result);
          const sentBy = `sent by "${integration.identifier}"${result.id ? ` as ${result.id}` : ''}${removed}`;
          attempts.push({ integration: integration.identifier, outcome: 'sent', reason: `${result.id ? `as ${result.id}` : 'accepted'}${removed}` });
          return {
            kind: 'message',
            message: { ...base, ...addressOf(recipient.to), providerId: integration.providerId, ...(result.id && { providerMessageId: result.id, _integrationId: integration._id }), status: 'sent', deliveredAt: [base.createdAt] },
            note: { integration: integration.identifier, reason: reasonWith(sentBy), ...(attempts.length > 1 && { attempts }) },
          };
        } catch (error) {
          const text = (error instanceof Error ? error.message : String(error)) + noteDead(integration, error);
          const retryable = error instanceof ProviderError ? error.retryable : true;
          probe?.end(retryable && !context.finalAttempt ? 'retry' : 'failed', error);
          attempts.push({ integration: integration.identifier, outcome: 'failed', reason: text });
          if (!retryable) return failed(base, integration, error, reasonWith(`failed: ${text}`), attempts);
          record(integration, 'failure');
          const retryAfterMs = error instanceof ProviderError ? error.options.retryAfterMs : undefined;
          retry ??= { error, text, integration, ...(retryAfterMs !== undefined && { retryAfterMs }) };
          if (timedOut(error)) {
            // It may have been sent: no other integration sends it now, whatever comes next.
            const message: Message = { ...base, ...addressOf(recipient.to), providerId: integration.providerId, _integrationId: integration._id, status: 'sent', deliveredAt: [], outcome: 'unknown' };
            const note = { integration: integration.identifier, ...(attempts.length > 1 && { attempts }) };
            if (!provider.idempotent) {
              const reason = reasonWith(`outcome unknown: ${text}; "${integration.providerId}" takes no idempotency key, so it may have sent the message`);
              return { kind: 'unknown', error: text, message, note: { ...note, reason } };
            }
            retry = { error, text, integration };
            unsure = { kind: 'message', message, note: { ...note, reason: reasonWith(`outcome unknown: ${text}, and no attempt is left (each asked with the same idempotency key)`) } };
            break;
          }
        }
      } finally {
        release();
      }
    }

    if (retry) {
      // When no attempt is left after a timeout, the message may have been sent: kept as such, not as `error`.
      const final = unsure ?? failed(base, retry.integration, retry.error, reasonWith(`failed: ${retry.text}`), attempts, retry.text);
      if (unsure) {
        const then = '; will retry with the same idempotency key';
        return { kind: 'retry', error: retry.text, note: { ...final.note, reason: reasonWith(`${retry.text}${then}`) + (attempts.length > 1 ? then : '') }, final };
      }
      return { kind: 'retry', error: retry.text, ...(retry.retryAfterMs !== undefined && { retryAfterMs: retry.retryAfterMs }), note: { ...final.note, reason: reasonWith(`${retry.text}; will retry`) + (attempts.length > 1 ? '; will retry' : '') }, final };
    }
    if (openUntil !== null) {
      // Every integration that could send is resting: the step waits for the first to be tried again.
      const text = `every ${delivery.channel} integration that could send has its circuit open`;
      const integration = choice.order.find((i) => attempts.some((a) => a.integration === i.identifier && a.reason.startsWith('its circuit'))) ?? choice.order[0]!;
      const final = failed(base, integration, null, reasonWith(text), attempts, text);
      return { kind: 'retry', error: text, retryAfterMs: Math.max(0, openUntil - now()), note: { ...final.note, reason: `${final.note.reason}; will retry` }, final };
    }
    const reason = passedOver ? reasonWith(passedOver.reason) : attempts.length > 0 ? reasonWith('') : choice.reason;
    return notSent(base, reason, passedOver?.integration, attempts);

    /** Keeps the dead device tokens an answer names; the phrase `explain` adds for them. */
    function noteDead(integration: Integration, answer: unknown): string {
      const tokens = deadTokensOf(answer);
      if (tokens.length > 0) dead.push({ providerId: integration.providerId, integrationIdentifier: integration.identifier, tokens });
      return removedPhrase(tokens);
    }
  }
}

/** The message of a step that had nowhere to go: `warning`, with the reason. */
function notSent(base: Message, reason: string, integration?: Integration, attempts: readonly DeliveryAttempt[] = []): Extract<StepSent, { kind: 'message' }> {
  return {
    kind: 'message',
    message: { ...base, ...(integration && { providerId: integration.providerId }), status: 'warning', deliveredAt: [], errorText: reason },
    note: { decision: 'not_sent', reason, ...(integration && { integration: integration.identifier }), ...(attempts.length > 1 && { attempts }) },
    notSent: reason,
  };
}

/** The subscriber's entry on the suppression list for an email or SMS step, if any. */
function suppressionOf(context: DeliveryContext, channel: Message['channel']): Suppression | undefined {
  if (channel !== 'email' && channel !== 'sms') return undefined;
  const address = channel === 'email' ? context.subscriber.email : context.subscriber.phone;
  return address ? context.suppressed?.get(`${channel}\u0000${normalAddress(channel, address)}`) : undefined;
}

/** The message of a step that failed for good (or will, when no attempt is left), with every attempt in its note. */
function failed(base: Message, integration: Integration, error: unknown, reason: string, attempts: readonly DeliveryAttempt[], text?: string): Extract<StepSent, { kind: 'message' }> {
  const errorText = text ?? (error instanceof Error ? error.message : String(error));
  const errorId = error instanceof ProviderError ? (error.options.code ?? (error.options.status ? `http_${error.options.status}` : 'provider_error')) : 'provider_error';
  return {
    kind: 'message',
    message: { ...base, providerId: integration.providerId, status: 'error', deliveredAt: [], errorId, errorText },
    note: { integration: integration.identifier, reason, ...(attempts.length > 1 && { attempts }) },
    failure: errorText,
  };
}
