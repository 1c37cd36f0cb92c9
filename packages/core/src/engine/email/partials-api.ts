import { TidingsError, notFound } from '../../errors.js';
import { partialInputSchema, type Partial, type PartialInput } from '../../schemas/index.js';
import { templateSyntaxError } from '../../templates/render.js';
import { parseInput } from '../../validation.js';
import type { EngineContext } from '../context.js';
import { PARTIALS_TABLE, listPartials } from './look-records.js';

/**
 * Partials: liquid blocks that layouts and email steps include with `{% render 'name', key: value %}`
 * (a button, a signature), stored as records. A partial sees only what the render tag passes it.
 */
export function partialsApi(ctx: EngineContext) {
  const { storage, env } = ctx;
  return {
    async upsert(input: PartialInput): Promise<Partial> {
      const parsed = parseInput(partialInputSchema, input, 'partial');
      const syntax = templateSyntaxError(parsed.content);
      if (syntax) throw new TidingsError('validation_failed', `Invalid partial: content: is not a valid template: ${syntax}`, { issues: [{ path: 'content', message: `is not a valid template: ${syntax}` }] });
      return storage.transaction(async (tx) => {
        const existing = (await tx.records.get(env, PARTIALS_TABLE, [parsed.identifier]))[0]?.doc as Partial | undefined;
        const partial: Partial = { ...parsed, revision: (existing?.revision ?? 0) + 1, updatedAt: ctx.now() };
        await tx.records.put(env, PARTIALS_TABLE, [{ key: partial.identifier, doc: partial }]);
        return partial;
      });
    },
    async get(identifier: string): Promise<Partial | null> {
      return ((await storage.records.get(env, PARTIALS_TABLE, [identifier]))[0]?.doc as Partial | undefined) ?? null;
    },
    list: (): Promise<Partial[]> => listPartials(storage.records, env),
    async delete(identifier: string): Promise<void> {
      if ((await storage.records.delete(env, PARTIALS_TABLE, [identifier])) === 0) throw notFound('partial', identifier);
    },
  };
}
