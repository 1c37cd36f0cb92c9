/** Stable error codes; the HTTP adapter maps each to a status in one place. */
export type TidingsErrorCode =
  | 'validation_failed'
  | 'not_found'
  | 'conflict'
  | 'unauthorized'
  | 'too_many_events';

export interface FieldIssue {
  /** Dot path of the offending member, `[n]` for array items (e.g. `steps[0].template.content`). */
  readonly path: string;
  readonly message: string;
}

export class TidingsError extends Error {
  override readonly name = 'TidingsError';
  readonly code: TidingsErrorCode;
  readonly issues: readonly FieldIssue[];

  constructor(
    code: TidingsErrorCode,
    message: string,
    options: { issues?: readonly FieldIssue[]; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.issues = options.issues ?? [];
  }
}

export const isTidingsError = (error: unknown, code?: TidingsErrorCode): error is TidingsError =>
  error instanceof TidingsError && (code === undefined || error.code === code);

export const notFound = (what: string, id: string) => new TidingsError('not_found', `${what} "${id}" was not found`);
