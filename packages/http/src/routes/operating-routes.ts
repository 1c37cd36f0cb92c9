import { parseInput } from '@tidings/core/internal';
import { auditKindSchema } from '@tidings/core/schemas';
import { z } from 'zod';
import { route, type RouteDefinition } from './route.js';

/** `GET /v1/audit`'s query, as text; the engine checks the instant and the cursor, naming the field. */
const auditQuery = z.strictObject({
  since: z.string().optional(),
  kind: auditKindSchema.optional(),
  cursor: z.string().optional(),
  limit: z.string().regex(/^\d{1,3}$/, 'must be a whole number').optional(),
});

/**
 * What an operator needs: erase and export one subscriber (GDPR articles 17 and 20), and the audit
 * log. Erase is its own POST, apart from Novu's `DELETE /v1/subscribers/:subscriberId`, which keeps
 * its meaning (the subscriber goes, their messages and runs stay).
 */
export function operatingRoutes(): RouteDefinition[] {
  return [
    route({
      method: 'post',
      path: '/v1/subscribers/:subscriberId/erase',
      summary: 'Erase everything held about a subscriber in one transaction (messages, preferences, credentials, memberships, jobs, runs); a suppression of their address stays as a hash. Answers what was removed, by kind',
      status: 200,
      envelope: 'data',
      handle: ({ tidings, params }) => tidings.subscribers.erase(params['subscriberId']!),
    }),
    route({
      method: 'get',
      path: '/v1/subscribers/:subscriberId/export',
      summary: 'Everything held about a subscriber as one JSON document (format tidings.subscriber-export.v1)',
      status: 200,
      envelope: 'data',
      handle: ({ tidings, params }) => tidings.subscribers.export(params['subscriberId']!),
    }),
    route({
      method: 'get',
      path: '/v1/audit',
      summary: 'The audit log of configuration changes, newest first: who (the API key\u2019s name, code, cli), what, when (?since=, ?kind=, ?cursor=, ?limit= up to 500); `{ data, nextCursor }`',
      status: 200,
      envelope: 'raw',
      query: auditQuery,
      async handle({ tidings, query }) {
        const q = parseInput(auditQuery, query, 'query');
        const page = await tidings.audit.list({
          ...(q.since !== undefined && { since: q.since }),
          ...(q.kind !== undefined && { kind: q.kind }),
          ...(q.cursor !== undefined && { cursor: q.cursor }),
          ...(q.limit !== undefined && { limit: Number(q.limit) }),
        });
        return { data: page.items, nextCursor: page.nextCursor };
      },
    }),
  ];
}
