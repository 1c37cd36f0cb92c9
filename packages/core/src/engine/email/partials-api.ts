import { notFound } from '../../errors.js';
import { recordAudit } from '../audit/audit-records.js';
import { currentActor } from '../audit/actor.js';
import { writeOptionsSchema, type Partial, type PartialInput, type WriteOptions } from '../../schemas/index.js';
import { parseInput } from '../../validation.js';
import type { EngineContext } from '../context.js';
import { historyApi, namedIdOf } from '../revisions/history-api.js';
import { PARTIAL_HISTORY } from '../revisions/revision-kinds.js';
import { PARTIALS_TABLE, getPartial, listPartials } from './look-records.js';
import { buildPartial, checkPartial, savePartial } from './look-writes.js';

/**
 * Partials: liquid blocks that layouts and email steps include with `{% render 'name', key: value %}`
 * (a button, a signature), stored as records. A partial sees only what the render tag passes it.
 * Each change is kept as a revision (`history`, `diff`, `rollback`).
 */
export function partialsApi(ctx: EngineContext) {
  const { storage, env } = ctx;
  function write(input: unknown, by: string, restores?: number): Promise<Partial> {
    const parsed = checkPartial(input);
    return storage.transaction(async (tx) => {
      const stored = await getPartial(tx.records, env, parsed.identifier);
      return savePartial(ctx, tx, buildPartial(parsed, stored, ctx.now()), stored, by, restores);
    });
  }
  return {
    /** Creates or replaces a partial; each change stores a revision recorded as made `by` (default `code`). */
    async upsert(input: PartialInput, options: WriteOptions = {}): Promise<Partial> {
      const { by } = parseInput(writeOptionsSchema, options, 'partial write options');
      return write(input, by ?? currentActor());
    },
    get: (identifier: string): Promise<Partial | null> => getPartial(storage.records, env, identifier),
    list: (): Promise<Partial[]> => listPartials(storage.records, env),
    /** Removes a partial; its revisions stay readable. */
    async delete(identifier: string): Promise<void> {
      await storage.transaction(async (tx) => {
        if ((await tx.records.delete(env, PARTIALS_TABLE, [identifier])) === 0) throw notFound('partial', identifier);
        await recordAudit(tx.records, env, ctx.clock.now(), [{ kind: 'partial', action: 'deleted', target: identifier }]);
      });
    },
    ...historyApi(ctx, PARTIAL_HISTORY, {
      idOf: namedIdOf(ctx, PARTIAL_HISTORY, async (id) => (await getPartial(storage.records, env, id)) !== null),
      restore: (old, by, restores) => write({ identifier: old.identifier, content: old.content }, by, restores),
    }),
  };
}
