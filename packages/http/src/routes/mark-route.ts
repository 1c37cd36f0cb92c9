import type { Message, Tidings } from '@tidings/core';
import type { z } from 'zod';
import { HttpError } from '../errors.js';
import { messageToWire } from '../wire.js';
import { route, type RouteDefinition } from './route.js';

/**
 * A route that marks messages (`{ messageId, … }` → the updated messages, 201). A body without any
 * message id is Novu's 400 `messageId is required` (its e2e test mark-as-by-mark).
 */
export function markRoute(definition: {
  path: string;
  summary: string;
  body: z.ZodType;
  mark: (tidings: Tidings, subscriberId: string, body: never) => Promise<Message[]>;
}): RouteDefinition {
  return route({
    method: 'post',
    path: definition.path,
    summary: definition.summary,
    status: 201,
    envelope: 'data',
    body: definition.body,
    async handle({ tidings, params, body }) {
      const ids = typeof body === 'object' && body !== null ? (body as { messageId?: unknown }).messageId : undefined;
      if (ids === undefined || ids === null || ids === '' || (Array.isArray(ids) && ids.length === 0)) throw new HttpError(400, 'messageId is required');
      return (await definition.mark(tidings, params['subscriberId']!, body as never)).map(messageToWire);
    },
  });
}
