import { randomBytes } from 'node:crypto';
import { notFound, TidingsError } from '../../errors.js';
import { recordAudit } from '../audit/audit-records.js';
import { changedFields } from '../audit/changed-fields.js';
import { newId } from '../../ids.js';
import { webhookEndpointInputSchema, webhookEndpointPatchSchema, type WebhookDelivery, type WebhookEndpoint, type WebhookEndpointInput, type WebhookEndpointPatch } from '../../schemas/index.js';
import { parseInput } from '../../validation.js';
import type { EngineContext } from '../context.js';
import { pageLimit, pageOf, positionOf } from '../../util/page-cursor.js';
import { forgetEndpoints } from './webhook-outbox.js';

/** An endpoint as it is shown: everything but its secret. */
export type WebhookEndpointView = Omit<WebhookEndpoint, 'secret'>;

const view = ({ secret: _secret, ...endpoint }: WebhookEndpoint): WebhookEndpointView => endpoint;

const invalidQuery = (path: string, message: string) => new TidingsError('validation_failed', 'Invalid webhook deliveries query', { issues: [{ path, message }] });

/**
 * Webhook endpoints: your app's URLs that get the engine's events (`message.sent`, `message.delivered`,
 * `message.read`, …), each delivery signed as Standard Webhooks says, retried for about a day, and
 * listed with its status.
 */
export function webhooksApi(ctx: EngineContext, hasTransport: boolean) {
  const { storage, env } = ctx;
  const stored = async (id: string) => {
    const found = await storage.webhooks.getEndpoint(env, id);
    if (!found) throw notFound('Webhook endpoint', id);
    return found;
  };
  return {
    /**
     * Adds an endpoint for the event types it names. Its `secret` (a Standard Webhooks `whsec_…`) is
     * the one given, or a new one: it is returned here, once, and never shown again.
     */
    async create(input: WebhookEndpointInput): Promise<{ endpoint: WebhookEndpointView; secret: string }> {
      const { url, events, secret, description } = parseInput(webhookEndpointInputSchema, input, 'webhook endpoint');
      if (!hasTransport) throw new TidingsError('validation_failed', 'This engine cannot send webhooks: createTidings needs a webhookTransport (from @tidings/providers)', { issues: [{ path: 'webhookTransport', message: 'is not set' }] });
      const now = ctx.now();
      const endpoint: WebhookEndpoint = { _id: `ep_${newId(ctx.clock.now())}`, url, events: [...new Set(events)], active: true, secret: secret ?? `whsec_${randomBytes(24).toString('base64')}`, failures: 0, createdAt: now, updatedAt: now, ...(description !== undefined && { description }) };
      await storage.transaction(async (tx) => {
        await tx.webhooks.putEndpoint(env, endpoint);
        await recordAudit(tx.records, env, ctx.clock.now(), [{ kind: 'webhook', action: 'created', target: endpoint._id, fields: ['events', 'secret', 'url'] }]);
      });
      forgetEndpoints(ctx);
      return { endpoint: view(endpoint), secret: endpoint.secret };
    },
    /** Every endpoint, oldest first, without secrets. */
    async list(): Promise<WebhookEndpointView[]> {
      return (await storage.webhooks.listEndpoints(env)).map(view);
    },
    async get(id: string): Promise<WebhookEndpointView> {
      return view(await stored(id));
    },
    /** Changes the members given; `active: true` enables an endpoint that was disabled (its failure count starts again). */
    async update(id: string, patch: WebhookEndpointPatch): Promise<WebhookEndpointView> {
      const changes = parseInput(webhookEndpointPatchSchema, patch, 'webhook endpoint patch');
      const next = await storage.transaction(async (tx) => {
        const found = await tx.webhooks.getEndpoint(env, id);
        if (!found) throw notFound('Webhook endpoint', id);
        const enabled = changes.active === true && !found.active;
        const { disabledAt: _at, disabledReason: _reason, ...rest } = found;
        const updated: WebhookEndpoint = {
          ...(enabled ? { ...rest, failures: 0 } : found),
          ...(changes.url !== undefined && { url: changes.url }),
          ...(changes.events !== undefined && { events: [...new Set(changes.events)] }),
          ...(changes.description !== undefined && { description: changes.description }),
          ...(changes.active !== undefined && { active: changes.active }),
          updatedAt: ctx.now(),
        };
        await tx.webhooks.putEndpoint(env, updated);
        const fields = changedFields(found, updated).filter((f) => f !== 'failures');
        if (fields.length > 0) await recordAudit(tx.records, env, ctx.clock.now(), [{ kind: 'webhook', action: 'updated', target: id, fields }]);
        return updated;
      });
      forgetEndpoints(ctx);
      return view(next);
    },
    /** Removes the endpoint and its deliveries (pending ones are not sent). */
    async delete(id: string): Promise<void> {
      await storage.transaction(async (tx) => {
        if (!(await tx.webhooks.deleteEndpoint(env, id))) throw notFound('Webhook endpoint', id);
        await recordAudit(tx.records, env, ctx.clock.now(), [{ kind: 'webhook', action: 'deleted', target: id }]);
      });
      forgetEndpoints(ctx);
    },
    /** Deliveries newest first, with their status, attempts and the receiver's last answer; `limit` 1–100 (default 50). */
    async deliveries(query: { endpointId?: string; status?: WebhookDelivery['status']; limit?: number; cursor?: string } = {}): Promise<{ data: WebhookDelivery[]; nextCursor: string | null }> {
      const limit = pageLimit(query.limit, 'webhook deliveries');
      if (query.status !== undefined && !['pending', 'delivered', 'failed'].includes(query.status)) throw invalidQuery('status', 'must be pending, delivered or failed');
      if (query.endpointId !== undefined) await stored(query.endpointId);
      const rows = await storage.webhooks.listDeliveries(env, {
        limit: limit + 1,
        ...(query.endpointId !== undefined && { endpointId: query.endpointId }),
        ...(query.status !== undefined && { status: query.status }),
        ...(query.cursor !== undefined && { after: (({ at, id }) => ({ createdAt: at, id }))(positionOf(query.cursor, 'webhook deliveries')) }),
      });
      return pageOf(rows, limit, (d) => ({ at: d.createdAt, id: d._id }));
    },
  };
}
