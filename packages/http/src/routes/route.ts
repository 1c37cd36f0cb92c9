import { notFound } from '@tidings/core/internal';
import type { Tidings } from '@tidings/core';
import type { z } from 'zod';
import type { IdempotentRequest } from '../context.js';

export interface RouteInput {
  readonly tidings: Tidings;
  readonly params: Record<string, string>;
  readonly query: Record<string, string>;
  /** The parsed JSON body (undefined when there is none), or the text of a `textBody` route's. */
  readonly body: unknown;
  /** Set when the request runs under an `idempotency-key`. */
  readonly idempotency?: IdempotentRequest;
}

/** One route, defined once: the handler and the schemas `/openapi.json` is generated from. */
export interface RouteDefinition {
  readonly method: 'get' | 'post' | 'patch' | 'put' | 'delete';
  /** Hono form: `/v1/topics/:topicKey`. */
  readonly path: string;
  readonly summary: string;
  /** 204 answers with no body, whatever the handler returns. */
  readonly status: 200 | 201 | 204;
  readonly body?: z.ZodType;
  /** The body is a file of this media type, not JSON: the handler gets its text as `body`. */
  readonly textBody?: string;
  readonly query?: z.ZodType;
  /** `data`: `{ "data": result }` (Novu's envelope); `raw`: the result is the body. */
  readonly envelope: 'data' | 'raw';
  handle(input: RouteInput): Promise<unknown>;
}

export const route = (definition: RouteDefinition) => definition;

/** What a read found, or the 404 naming it. */
export async function orNotFound<T>(found: Promise<T | null>, what: string, id: string): Promise<T> {
  const value = await found;
  if (!value) throw notFound(what, id);
  return value;
}
