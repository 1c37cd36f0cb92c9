import { isTidingsError, type FieldIssue } from '@tidings/core';
import { cutText, listedIssues, MAX_ISSUE_TEXT } from '@tidings/core/internal';

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  500: 'Internal Server Error',
};

/** A failure the adapter itself decides (auth, parsing, limits); mapped like a TidingsError. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export interface ErrorBody {
  statusCode: number;
  message: string | string[];
  error: string;
  timestamp: string;
  path: string;
  [extra: string]: unknown;
}

export function errorBody(status: number, message: string | string[], path: string, now: Date, extra: Record<string, unknown> = {}): ErrorBody {
  return { statusCode: status, message, error: REASONS[status] ?? 'Error', timestamp: now.toISOString(), path, ...extra };
}

/** Longest `message` of a 422, in characters: validation messages list their issues, which `errors` holds bounded. */
const MAX_MESSAGE_TEXT = 4 * MAX_ISSUE_TEXT;

const fieldErrors = (issues: readonly FieldIssue[]) => {
  // No prototype: a field named `__proto__` (a hostile body's) is a field like any other.
  const errors: Record<string, { messages: string[] }> = Object.create(null) as Record<string, { messages: string[] }>;
  for (const issue of issues) (errors[issue.path || 'body'] ??= { messages: [] }).messages.push(issue.message);
  return errors;
};

/**
 * The one place errors become HTTP: TidingsError codes map to statuses, validation failures name their
 * fields, anything unexpected is a bare 500 without internals.
 */
export function toHttp(error: unknown, path: string, now: Date): { status: number; body: ErrorBody; headers: Record<string, string> } {
  if (error instanceof HttpError) return { status: error.status, body: errorBody(error.status, error.message, path, now, error.extra), headers: error.headers };
  if (isTidingsError(error)) {
    switch (error.code) {
      case 'validation_failed': {
        // An input can fail once per element: the answer lists a bounded few and counts the rest.
        const { listed, unlisted } = listedIssues(error.issues);
        return { status: 422, body: errorBody(422, cutText(error.message, MAX_MESSAGE_TEXT), path, now, { errors: fieldErrors(listed), ...(unlisted > 0 && { unlistedErrors: unlisted }) }), headers: {} };
      }
      case 'too_many_events':
        // As Novu's e2e test expects: 422 with the sentence under `errors.events`, and `message` a list
        // (Novu's validation pipe answers so; both of its SDKs accept it).
        return { status: 422, body: errorBody(422, [error.message], path, now, { errors: { events: { messages: [error.message] } } }), headers: {} };
      case 'not_found':
        return { status: 404, body: errorBody(404, error.message, path, now), headers: {} };
      case 'conflict':
        return { status: 409, body: errorBody(409, error.message, path, now), headers: {} };
      case 'unauthorized':
        return { status: 401, body: errorBody(401, error.message, path, now), headers: {} };
      default:
        break;
    }
  }
  return { status: 500, body: errorBody(500, 'Internal server error', path, now), headers: {} };
}
