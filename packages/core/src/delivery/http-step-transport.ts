/** One `http` step's request as the engine hands it to the transport (rendered, nothing left to fill in). */
export interface HttpStepTransportRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  /** How long the answer may take; past it the transport throws (a retryable failure). */
  readonly timeoutMs: number;
}

/** The answer, whatever its status: the engine classifies it (2xx taken, 429 and 5xx retried, the rest final). */
export interface HttpStepAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  readonly body: string;
}

/**
 * Sends `http` steps' requests (`httpStepTransport()` of `@tidings/providers`: the providers' address
 * guard, private addresses refused unless `network.allow` lists them, redirects not followed).
 * Resolves with the answer, whatever its status; throws when there was none: a `ProviderError` says
 * whether trying again may help (`retryable`), any other error is taken as a network failure.
 */
export type HttpStepTransport = (request: HttpStepTransportRequest) => Promise<HttpStepAnswer>;
