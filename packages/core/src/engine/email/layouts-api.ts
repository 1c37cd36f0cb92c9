import { TidingsError, notFound } from '../../errors.js';
import { compileLayout } from '../../email/compile-layout.js';
import { layoutInputSchema, type Layout, type LayoutInput } from '../../schemas/index.js';
import { parseInput } from '../../validation.js';
import type { EngineContext } from '../context.js';
import { LAYOUTS, defaultLayouts, getLayout, layoutRecord, listLayouts } from './look-records.js';

/**
 * Email layouts: HTML or MJML with a `{{ content }}` slot, stored as records. MJML is compiled when a
 * layout is saved (never per message), and a layout that does not compile or parse is refused.
 */
export function layoutsApi(ctx: EngineContext) {
  const { storage, env } = ctx;
  return {
    /** Creates or replaces a layout; `isDefault: true` makes it the environment's default (and the previous default not). */
    async upsert(input: LayoutInput): Promise<Layout> {
      const parsed = parseInput(layoutInputSchema, input, 'layout');
      // Compiled before the transaction: MJML is slow, and nothing of it needs the storage.
      const compiled = await compileLayout(parsed.content, parsed.type);
      if (!compiled.ok) throw new TidingsError('validation_failed', `Invalid layout: ${compiled.field}: ${compiled.message}`, { issues: [{ path: compiled.field, message: compiled.message }] });
      const now = ctx.now();
      return storage.transaction(async (tx) => {
        const existing = await getLayout(tx.records, env, parsed.identifier);
        const layout: Layout = {
          identifier: parsed.identifier,
          name: parsed.name ?? existing?.name ?? parsed.identifier,
          type: compiled.type,
          content: parsed.content,
          html: compiled.html,
          isDefault: parsed.isDefault ?? existing?.isDefault ?? false,
          revision: (existing?.revision ?? 0) + 1,
          createdAt: existing?.createdAt ?? now,
          updatedAt: now,
        };
        const demoted = layout.isDefault ? (await defaultLayouts(tx.records, env)).filter((l) => l.identifier !== layout.identifier).map((l) => layoutRecord({ ...l, isDefault: false })) : [];
        await tx.records.put(env, LAYOUTS, [...demoted, layoutRecord(layout)]);
        return layout;
      });
    },
    get: (identifier: string): Promise<Layout | null> => getLayout(storage.records, env, identifier),
    /** Every layout of the environment, by identifier. */
    list: (): Promise<Layout[]> => listLayouts(storage.records, env),
    /** Removes a layout; emails that name it fail (with the reason in `explain`) until it exists again. */
    async delete(identifier: string): Promise<void> {
      if ((await storage.records.delete(env, LAYOUTS, [identifier])) === 0) throw notFound('layout', identifier);
    },
  };
}
