import type { CatalogRevision, Layout, LayoutRevision, Partial, PartialRevision, TranslationCatalog, Workflow, WorkflowRevision } from '../../schemas/index.js';
import { CATALOG_RULES, LAYOUT_RULES, PARTIAL_RULES, WORKFLOW_RULES } from '../../revisions/kinds.js';
import { catalogKey } from '../translations/catalog-records.js';
import type { RevisionKind } from './revision-records.js';

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

/** Layouts' revisions, by identifier: a layout made again under its identifier goes on with its history. */
export const LAYOUT_HISTORY: RevisionKind<Layout, LayoutRevision> = {
  ...LAYOUT_RULES,
  table: 'layout_revisions',
  idOf: (l) => l.identifier,
  wrap: (layout, meta) => ({ identifier: layout.identifier, ...meta, layout }),
  unwrap: (r) => r.layout,
};

/** Partials' revisions, by identifier. */
export const PARTIAL_HISTORY: RevisionKind<Partial, PartialRevision> = {
  ...PARTIAL_RULES,
  table: 'partial_revisions',
  idOf: (p) => p.identifier,
  wrap: (partial, meta) => ({ identifier: partial.identifier, ...meta, partial }),
  unwrap: (r) => r.partial,
};

/** Translation catalogs' revisions, by catalog (tenant and locale). */
export const CATALOG_HISTORY: RevisionKind<TranslationCatalog, CatalogRevision> = {
  ...CATALOG_RULES,
  table: 'translation_revisions',
  idOf: catalogKey,
  wrap: (catalog, meta) => ({ locale: catalog.locale, tenant: catalog.tenant, ...meta, catalog }),
  unwrap: (r) => r.catalog,
};
