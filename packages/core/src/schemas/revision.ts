import { z } from 'zod';
import type { Layout, Partial } from './email-look.js';
import { isoInstantSchema } from './enums.js';
import { localeSchema } from './trigger.js';
import type { TranslationCatalog } from './translations.js';
import { workflowSchema } from './workflow.js';

/** Who made a change: `code` (a library call), `api` (an HTTP route), an API key's name, or what the caller says. */
export const revisionAuthorSchema = z.string().trim().min(1, 'must not be empty').max(200);

/** A stored workflow's revision number. */
export const revisionNumberSchema = z.number().int().positive();

/** One immutable revision of a stored workflow: the workflow as it was saved, who saved it and when. */
export const workflowRevisionSchema = z.object({
  workflowId: z.string(),
  identifier: z.string(),
  revision: revisionNumberSchema,
  by: z.string(),
  /** The engine clock's instant of the change. */
  at: isoInstantSchema,
  /** The revision this one restored (`workflows.rollback`). */
  restores: revisionNumberSchema.optional(),
  workflow: workflowSchema,
});
export type WorkflowRevision = z.infer<typeof workflowRevisionSchema>;

/** What every revision says besides the value it keeps: its number, who made it, when, and what it restored. */
export interface RevisionMeta {
  readonly revision: number;
  readonly by: string;
  /** The engine clock's instant of the change. */
  readonly at: string;
  /** The revision this one restored (`rollback`). */
  readonly restores?: number;
}

/** One immutable revision of a layout: the whole layout as it was saved. */
export interface LayoutRevision extends RevisionMeta {
  readonly identifier: string;
  readonly layout: Layout;
}

/** One immutable revision of a partial. */
export interface PartialRevision extends RevisionMeta {
  readonly identifier: string;
  readonly partial: Partial;
}

/** One immutable revision of a translation catalog (the environment's, `tenant: null`, or a tenant's). */
export interface CatalogRevision extends RevisionMeta {
  readonly locale: string;
  readonly tenant: string | null;
  readonly catalog: TranslationCatalog;
}

/** Options of a write that stores a revision (`upsert`, `rollback` of workflows, layouts, partials, catalogs). */
export const writeOptionsSchema = z.strictObject({
  /** Who makes the change, recorded with the revision. @default 'code' */
  by: revisionAuthorSchema.optional(),
});
export type WriteOptions = z.input<typeof writeOptionsSchema>;
/** The options of a workflow write: `writeOptionsSchema`. */
export const workflowWriteOptionsSchema = writeOptionsSchema;
export type WorkflowWriteOptions = WriteOptions;

/** `workflows.history` options. */
export const revisionHistoryQuerySchema = z.strictObject({
  /** Newest first, at most this many. @default 50 */
  limit: z.number().int().min(1).max(500).default(50),
});
export type RevisionHistoryQuery = z.input<typeof revisionHistoryQuerySchema>;

/** Which translation catalog a revision call means: the environment's, or a tenant's. */
const catalogTenant = { tenant: z.string().trim().min(1, 'must not be empty').optional() };
/** `translations.revision` and `diff` options. */
export const catalogRefSchema = z.strictObject({ locale: localeSchema, ...catalogTenant });
/** `translations.history` options. */
export const catalogHistoryQuerySchema = revisionHistoryQuerySchema.extend(catalogTenant);
export type CatalogHistoryQuery = z.input<typeof catalogHistoryQuerySchema>;
/** `translations.upsert`, `importPo` and `rollback` options. */
export const catalogWriteOptionsSchema = writeOptionsSchema.extend(catalogTenant);
export type CatalogWriteOptions = z.input<typeof catalogWriteOptionsSchema>;

/** Files a plan or an apply takes at most. */
export const MAX_WORKFLOW_FILES = 1_000;
/** Longest text of one file, in characters. */
export const MAX_FILE_TEXT = 1_000_000;

const fileName = z.string().min(1, 'must not be empty').max(500);

/** What `apply` can prune: the stored ones of a kind that no file names. */
export const revisionedKindSchema = z.enum(['workflows', 'layouts', 'partials', 'translations']);

/**
 * A folder of files to plan or apply. Each file is its path in the folder and its text, which its
 * path says how to read (`hello.json` a workflow, `layouts/main.html` a layout's content, …), or a
 * workflow given as its parsed JSON (`{ file, workflow }`).
 */
export const workflowFilesInputSchema = z.strictObject({
  files: z
    .array(z.union([z.strictObject({ file: fileName, workflow: z.unknown() }), z.strictObject({ file: fileName, text: z.string().max(MAX_FILE_TEXT, 'must be at most 1,000,000 characters') })]))
    .max(MAX_WORKFLOW_FILES, `at most ${MAX_WORKFLOW_FILES} files`),
  /**
   * Delete the stored ones no file names: `true` for the workflows and each other kind the files
   * include, or a list of the kinds (so an empty folder of a kind can prune it). @default false
   */
  prune: z.union([z.boolean(), z.array(revisionedKindSchema).max(4)]).default(false),
  /** Who applies, recorded with each revision. @default 'code' */
  by: revisionAuthorSchema.optional(),
});
export type WorkflowFilesInput = z.input<typeof workflowFilesInputSchema>;
