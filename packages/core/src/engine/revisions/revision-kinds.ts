import type { CatalogRevision, Layout, LayoutRevision, Partial, PartialRevision, RevisionMeta, TranslationCatalog, Workflow, WorkflowRevision } from '../../schemas/index.js';
import { CATALOG_RULES, LAYOUT_RULES, PARTIAL_RULES, WORKFLOW_RULES, type KindRules } from '../../revisions/kinds.js';
import { catalogKey } from '../translations/catalog-records.js';
import type { Revisable, RevisionKind } from './revision-records.js';

/**
 * Workflows' revisions: kept by the workflow's `_id`, found by its identifier too once it is deleted
 * (a workflow made again under its identifier is another workflow, with a history of its own).
 */
export const WORKFLOW_HISTORY: RevisionKind<Workflow, WorkflowRevision> = {
  ...WORKFLOW_RULES,
  table: 'workflow_revisions',
  idOf: (w) => w._id,
  aliasOf: (w) => w.identifier,
  wrap: (workflow, meta) => ({ workflowId: workflow._id, identifier: workflow.identifier, ...meta, workflow }),
  unwrap: (r) => r.workflow,
};

/**
 * A kind kept by its identifier, its revisions holding the value under `member`: a layout or partial
 * made again under its identifier goes on with its history.
 */
function byIdentifier<T extends Revisable & { readonly identifier: string }, M extends string>(rules: KindRules<T>, table: string, member: M): RevisionKind<T, RevisionMeta & { readonly identifier: string } & { readonly [K in M]: T }> {
  return {
    ...rules,
    table,
    idOf: (value) => value.identifier,
    wrap: (value, meta) => ({ identifier: value.identifier, ...meta, [member]: value }) as RevisionMeta & { readonly identifier: string } & { readonly [K in M]: T },
    unwrap: (revision) => revision[member],
  };
}

/** Layouts' revisions, by identifier. */
export const LAYOUT_HISTORY: RevisionKind<Layout, LayoutRevision> = byIdentifier(LAYOUT_RULES, 'layout_revisions', 'layout');
/** Partials' revisions, by identifier. */
export const PARTIAL_HISTORY: RevisionKind<Partial, PartialRevision> = byIdentifier(PARTIAL_RULES, 'partial_revisions', 'partial');

/** Translation catalogs' revisions, by catalog (tenant and locale). */
export const CATALOG_HISTORY: RevisionKind<TranslationCatalog, CatalogRevision> = {
  ...CATALOG_RULES,
  table: 'translation_revisions',
  idOf: catalogKey,
  wrap: (catalog, meta) => ({ locale: catalog.locale, tenant: catalog.tenant, ...meta, catalog }),
  unwrap: (r) => r.catalog,
};
