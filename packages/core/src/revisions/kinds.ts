import type { Layout, Partial, TranslationCatalog, Workflow } from '../schemas/index.js';
import { canonicalJson, definitionOf, LAYOUT_BOOKKEEPING, RECORD_BOOKKEEPING, WORKFLOW_BOOKKEEPING } from './definition.js';
import { diffMembers, type RevisionChange } from './record-diff.js';
import { diffWorkflows } from './workflow-diff.js';

/** What keeps revisions and travels as files, by the name of its API (`tidings.layouts`) and folder. */
export const REVISIONED_KINDS = ['workflows', 'layouts', 'partials', 'translations'] as const;
export type RevisionedKind = (typeof REVISIONED_KINDS)[number];

/** The pure rules of one kind: what names one, what of it is its definition, and how two differ. */
export interface KindRules<T extends object> {
  readonly kind: RevisionedKind;
  /** What one is called in a plan's lines, and many. */
  readonly noun: readonly [one: string, many: string];
  /** The name a plan and a folder know it by: an identifier, or a catalog's `<tenant>/<locale>`. */
  readonly nameOf: (value: T) => string;
  readonly bookkeeping: ReadonlySet<string>;
  readonly diff: (before: T, after: T) => RevisionChange[];
}

/** Whether two values define the same thing (their bookkeeping aside): an unchanged save stores no revision. */
export const sameDefinition = <T extends object>(rules: Pick<KindRules<T>, 'bookkeeping'>, a: T, b: T): boolean =>
  canonicalJson(definitionOf(a, rules.bookkeeping)) === canonicalJson(definitionOf(b, rules.bookkeeping));

/** A catalog's name: its locale, after its tenant's identifier for a tenant's (`acme/de`). */
export const catalogName = (catalog: Pick<TranslationCatalog, 'locale' | 'tenant'>): string => (catalog.tenant === null ? catalog.locale : `${catalog.tenant}/${catalog.locale}`);

export const WORKFLOW_RULES: KindRules<Workflow> = { kind: 'workflows', noun: ['workflow', 'workflows'], nameOf: (w) => w.identifier, bookkeeping: WORKFLOW_BOOKKEEPING, diff: diffWorkflows };
export const LAYOUT_RULES: KindRules<Layout> = { kind: 'layouts', noun: ['layout', 'layouts'], nameOf: (l) => l.identifier, bookkeeping: LAYOUT_BOOKKEEPING, diff: (a, b) => diffMembers(a, b, LAYOUT_BOOKKEEPING) };
export const PARTIAL_RULES: KindRules<Partial> = { kind: 'partials', noun: ['partial', 'partials'], nameOf: (p) => p.identifier, bookkeeping: RECORD_BOOKKEEPING, diff: (a, b) => diffMembers(a, b, RECORD_BOOKKEEPING) };
export const CATALOG_RULES: KindRules<TranslationCatalog> = {
  kind: 'translations',
  noun: ['catalog', 'catalogs'],
  nameOf: catalogName,
  bookkeeping: RECORD_BOOKKEEPING,
  diff: (a, b) => diffMembers(a, b, RECORD_BOOKKEEPING),
};

/** Each kind's rules, by kind. */
export const KIND_RULES = { workflows: WORKFLOW_RULES, layouts: LAYOUT_RULES, partials: PARTIAL_RULES, translations: CATALOG_RULES } as const;
