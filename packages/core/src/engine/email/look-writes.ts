import { TidingsError } from '../../errors.js';
import { compileLayout } from '../../email/compile-layout.js';
import { layoutInputSchema, partialInputSchema, type Layout, type Partial } from '../../schemas/index.js';
import type { StorageRepositories } from '../../storage.js';
import { templateSyntaxError } from '../../templates/render.js';
import { parseInput } from '../../validation.js';
import type { EngineContext } from '../context.js';
import { saveRevision } from '../revisions/revision-records.js';
import { LAYOUT_HISTORY, PARTIAL_HISTORY } from '../revisions/revision-kinds.js';
import { LAYOUTS, PARTIALS_TABLE, defaultLayouts, layoutRecord } from './look-records.js';

/** A layout input, checked, with the HTML it compiles to. */
export interface CheckedLayout {
  readonly input: ReturnType<typeof layoutInputSchema.parse>;
  readonly type: 'html' | 'mjml';
  readonly html: string;
}

const refused = (what: string, field: string, message: string) => new TidingsError('validation_failed', `Invalid ${what}: ${field}: ${message}`, { issues: [{ path: field, message }] });

/** Checks a layout input and compiles it; a layout that does not compile or parse is refused naming the field. Never inside a transaction: MJML is slow. */
export async function checkLayout(input: unknown): Promise<CheckedLayout> {
  const parsed = parseInput(layoutInputSchema, input, 'layout');
  const compiled = await compileLayout(parsed.content, parsed.type);
  if (!compiled.ok) throw refused('layout', compiled.field, compiled.message);
  return { input: parsed, type: compiled.type, html: compiled.html };
}

/** The layout a checked input makes over the stored one: members it leaves out are kept. */
export function buildLayout({ input, type, html }: CheckedLayout, stored: Layout | null, now: string): Layout {
  return {
    identifier: input.identifier,
    name: input.name ?? stored?.name ?? input.identifier,
    type,
    content: input.content,
    html,
    isDefault: input.isDefault ?? stored?.isDefault ?? false,
    revision: stored?.revision ?? 0,
    createdAt: stored?.createdAt ?? now,
    updatedAt: now,
  };
}

const putLayout = (ctx: EngineContext, tx: StorageRepositories) => async (layout: Layout) => {
  await tx.records.put(ctx.env, LAYOUTS, [layoutRecord(layout)]);
  return layout;
};

/**
 * Stores a layout over the stored one as a new revision (none when it is the same); a default one
 * takes the flag from the environment's other default, which is a change of that one too.
 */
export async function saveLayout(ctx: EngineContext, tx: StorageRepositories, layout: Layout, stored: Layout | null, by: string, restores?: number): Promise<Layout> {
  const put = putLayout(ctx, tx);
  const { value } = await saveRevision(tx.records, ctx.env, LAYOUT_HISTORY, { stored, value: layout, by, restores }, put);
  if (!value.isDefault) return value;
  for (const other of await defaultLayouts(tx.records, ctx.env)) {
    if (other.identifier !== value.identifier) await saveRevision(tx.records, ctx.env, LAYOUT_HISTORY, { stored: other, value: { ...other, isDefault: false, updatedAt: layout.updatedAt }, by }, put);
  }
  return value;
}

/** Checks a partial input: its schema, then its template's syntax. */
export function checkPartial(input: unknown): ReturnType<typeof partialInputSchema.parse> {
  const parsed = parseInput(partialInputSchema, input, 'partial');
  const syntax = templateSyntaxError(parsed.content);
  if (syntax) throw refused('partial', 'content', `is not a valid template: ${syntax}`);
  return parsed;
}

export const buildPartial = (input: ReturnType<typeof partialInputSchema.parse>, stored: Partial | null, now: string): Partial => ({ ...input, revision: stored?.revision ?? 0, updatedAt: now });

/** Stores a partial over the stored one as a new revision (none when it is the same). */
export async function savePartial(ctx: EngineContext, tx: StorageRepositories, partial: Partial, stored: Partial | null, by: string, restores?: number): Promise<Partial> {
  const put = async (value: Partial) => (await tx.records.put(ctx.env, PARTIALS_TABLE, [{ key: value.identifier, doc: value }]), value);
  return (await saveRevision(tx.records, ctx.env, PARTIAL_HISTORY, { stored, value: partial, by, restores }, put)).value;
}
