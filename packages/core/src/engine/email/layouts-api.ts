import { notFound } from '../../errors.js';
import { recordAudit } from '../audit/audit-records.js';
import { currentActor } from '../audit/actor.js';
import { writeOptionsSchema, type Layout, type LayoutInput, type WriteOptions } from '../../schemas/index.js';
import { parseInput } from '../../validation.js';
import type { EngineContext } from '../context.js';
import { historyApi, namedIdOf } from '../revisions/history-api.js';
import { LAYOUT_HISTORY } from '../revisions/revision-kinds.js';
import { LAYOUTS, getLayout, listLayouts } from './look-records.js';
import { buildLayout, checkLayout, saveLayout } from './look-writes.js';

/**
 * Email layouts: HTML or MJML with a `{{ content }}` slot, stored as records. MJML is compiled when a
 * layout is saved (never per message), and a layout that does not compile or parse is refused. Each
 * change is kept as a revision (`history`, `diff`, `rollback`).
 */
export function layoutsApi(ctx: EngineContext) {
  const { storage, env } = ctx;
  /** Checks and compiles before the transaction: MJML is slow, and nothing of it needs the storage. */
  async function write(input: unknown, by: string, restores?: number): Promise<Layout> {
    const checked = await checkLayout(input);
    const now = ctx.now();
    return storage.transaction(async (tx) => {
      const stored = await getLayout(tx.records, env, checked.input.identifier);
      return saveLayout(ctx, tx, buildLayout(checked, stored, now), stored, by, restores);
    });
  }
  return {
    /**
     * Creates or replaces a layout; `isDefault: true` makes it the environment's default (and the
     * previous default not). Each change stores a revision recorded as made `by` (default `code`);
     * saving what is stored already changes nothing.
     */
    async upsert(input: LayoutInput, options: WriteOptions = {}): Promise<Layout> {
      const { by } = parseInput(writeOptionsSchema, options, 'layout write options');
      return write(input, by ?? currentActor());
    },
    get: (identifier: string): Promise<Layout | null> => getLayout(storage.records, env, identifier),
    /** Every layout of the environment, by identifier. */
    list: (): Promise<Layout[]> => listLayouts(storage.records, env),
    /** Removes a layout; emails that name it fail (with the reason in `explain`) until it exists again. Its revisions stay readable. */
    async delete(identifier: string): Promise<void> {
      await storage.transaction(async (tx) => {
        if ((await tx.records.delete(env, LAYOUTS, [identifier])) === 0) throw notFound('layout', identifier);
        await recordAudit(tx.records, env, ctx.clock.now(), [{ kind: 'layout', action: 'deleted', target: identifier }]);
      });
    },
    ...historyApi(ctx, LAYOUT_HISTORY, {
      idOf: namedIdOf(ctx, LAYOUT_HISTORY, async (id) => (await getLayout(storage.records, env, id)) !== null),
      restore: (old, by, restores) => write({ identifier: old.identifier, name: old.name, type: old.type, content: old.content, isDefault: old.isDefault }, by, restores),
    }),
  };
}
