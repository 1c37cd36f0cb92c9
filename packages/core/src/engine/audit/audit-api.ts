import { TidingsError } from '../../errors.js';
import { docsOf } from '../../records/docs.js';
import { auditListQuerySchema, type AuditEntry, type AuditListQuery } from '../../schemas/operating.js';
import { cursorAfter, decodePosition } from '../../util/page-cursor.js';
import { parseInput } from '../../validation.js';
import type { EngineContext } from '../context.js';
import { AUDIT, auditSort } from './audit-records.js';

/** The audit log of configuration changes (see `recordAudit`): read only. */
export function auditApi(ctx: EngineContext) {
  return {
    /**
     * Entries newest first: those at or after `since`, of one `kind`, the page after `cursor` (the
     * `nextCursor` of the page before), at most `limit` (50 by default). `nextCursor` is null on the last page.
     */
    async list(query: AuditListQuery = {}): Promise<{ items: AuditEntry[]; nextCursor: string | null }> {
      const { since, kind, cursor, limit } = parseInput(auditListQuerySchema, query, 'audit query');
      const after = cursor === undefined ? undefined : decodePosition(cursor);
      if (after === null) throw new TidingsError('validation_failed', 'Invalid audit query: cursor: is not a cursor this list gave', { issues: [{ path: 'cursor', message: 'is not a cursor this list gave' }] });
      const rows = await ctx.storage.records.find(ctx.env, AUDIT, {
        ...(kind !== undefined && { i1: kind }),
        ...(since !== undefined && { sort: { gte: since } }),
        order: 'desc',
        ...(after && { after: { sort: auditSort({ at: after.at, id: after.id }), key: after.id } }),
        limit: limit + 1,
      });
      const items = docsOf<AuditEntry>(rows.slice(0, limit));
      const last = items[items.length - 1];
      return { items, nextCursor: rows.length > limit && last ? cursorAfter({ at: last.at, id: last.id }) : null };
    },
  };
}
