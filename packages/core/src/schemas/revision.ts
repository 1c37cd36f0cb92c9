import { z } from 'zod';
import { isoInstantSchema } from './enums.js';
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

/** Options of a workflow write (`workflows.upsert`, `rollback`). */
export const workflowWriteOptionsSchema = z.strictObject({
  /** Who makes the change, recorded with the revision. @default 'code' */
  by: revisionAuthorSchema.optional(),
});
export type WorkflowWriteOptions = z.input<typeof workflowWriteOptionsSchema>;

/** `workflows.history` options. */
export const revisionHistoryQuerySchema = z.strictObject({
  /** Newest first, at most this many. @default 50 */
  limit: z.number().int().min(1).max(500).default(50),
});
export type RevisionHistoryQuery = z.input<typeof revisionHistoryQuerySchema>;

/** Files a plan or an apply takes at most. */
export const MAX_WORKFLOW_FILES = 1_000;

/** Workflows kept as files: each file's name (for messages) and its parsed JSON (a workflow, as `upsert` takes it). */
export const workflowFilesInputSchema = z.strictObject({
  files: z
    .array(z.strictObject({ file: z.string().min(1, 'must not be empty').max(500), workflow: z.unknown() }))
    .max(MAX_WORKFLOW_FILES, `at most ${MAX_WORKFLOW_FILES} files`),
  /** Stored workflows no file names are deleted. @default false */
  prune: z.boolean().default(false),
  /** Who applies, recorded with each revision. @default 'code' */
  by: revisionAuthorSchema.optional(),
});
export type WorkflowFilesInput = z.input<typeof workflowFilesInputSchema>;
