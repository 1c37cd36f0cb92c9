import type { Brand, Category, Layout, StepTemplate, Workflow } from '../schemas/index.js';
import type { CatalogEntries, CatalogSource } from '../translations/translator.js';
import { BASIC_LAYOUT } from './basic-layout.js';
import type { LayoutTemplate } from './compose-email.js';
import type { EmailComponents } from './email-components.js';

/** The brand a message is rendered with: the environment's, with its tenant's laid over it member by member. */
export type BrandVariables = Omit<Brand, 'tenant' | 'updatedAt'>;

/** What an email's look is made of for one walk: its brand and the environment's layouts. */
export interface EmailLook {
  readonly brand: BrandVariables | null;
  /** The environment's layouts by identifier. */
  readonly layouts: ReadonlyMap<string, Layout>;
  /** The environment's partials (`{% render 'name' %}`) by identifier: their liquid text. */
  readonly partials?: ReadonlyMap<string, string>;
  /** How to sign preference and unsubscribe links (when the engine has `links`). */
  readonly links?: LinkSigning;
  /** The environment's stored categories by key (when the engine has `links`: they set unsubscribe scopes). */
  readonly categories?: ReadonlyMap<string, Category>;
  /** The environment's translation catalogs (stored over those given in code); none: no `t`. */
  readonly translations?: { readonly source: CatalogSource; readonly defaultLocale: string; readonly trees?: Map<string, CatalogEntries> };
  /** The React components email steps may name (`createTidings({ emailComponents })`). */
  readonly components?: EmailComponents;
}

/** What a walk signs its links with. */
export interface LinkSigning {
  readonly baseUrl: string;
  readonly secret: string;
  readonly mailto?: string | undefined;
}

/** The layout used when none is stored or chosen (see `BASIC_LAYOUT`). */
export const BASIC: LayoutTemplate = { identifier: 'basic', html: BASIC_LAYOUT, type: 'html' };

/** The environment's brand with a tenant's over it; null when neither exists. */
export function brandOf(environment: Brand | null, tenant: Brand | null): BrandVariables | null {
  if (!environment && !tenant) return null;
  const { tenant: _t, updatedAt: _u, ...base } = environment ?? ({} as Brand);
  const { tenant: _t2, updatedAt: _u2, ...own } = tenant ?? ({} as Brand);
  const colors = { ...base.colors, ...own.colors };
  return { ...base, ...own, ...(Object.keys(colors).length > 0 && { colors }) };
}

export type LayoutChoice = { ok: true; layout: LayoutTemplate | null } | { ok: false; reason: string };

/**
 * The layout of an email step: the step's `layoutId`, else the workflow's, else the brand's, else the
 * environment's default layout, else the built-in one. `null` anywhere on the way means none (the
 * body alone); a layout named and not stored is the step's failure, never a silent substitute.
 */
export function chooseLayout(look: EmailLook | undefined, template: Pick<StepTemplate, 'layoutId'>, workflow: Pick<Workflow, 'layoutId'>): LayoutChoice {
  const named = template.layoutId !== undefined ? template.layoutId : workflow.layoutId !== undefined ? workflow.layoutId : look?.brand?.layoutId;
  if (named === null) return { ok: true, layout: null };
  if (named !== undefined) {
    const layout = look?.layouts.get(named);
    return layout ? { ok: true, layout } : { ok: false, reason: `the layout "${named}" does not exist` };
  }
  for (const layout of look?.layouts.values() ?? []) if (layout.isDefault) return { ok: true, layout };
  return { ok: true, layout: BASIC };
}
