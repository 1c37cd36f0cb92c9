import type { HttpStepConfig } from '../schemas/http-step.js';
import { HTTP_STEP_DEFAULT_TIMEOUT_MS } from '../schemas/http-step.js';
import { renderTemplate, type RenderBudget } from '../templates/render.js';

/** An `http` step's request, rendered: what the walk job sends, outside any transaction. */
export interface HttpStepRequest {
  readonly method: HttpStepConfig['method'];
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly timeoutMs: number;
}

/** How the walk job takes an `http` step's answer. */
export interface HttpStepCall {
  readonly stepIndex: number;
  readonly stepId: string;
  /** Where the answer goes: `steps.<resultKey>` (the step's `uuid`, Novu's stepId, else its `_id`). */
  readonly resultKey: string;
  readonly request: HttpStepRequest;
  /** A JSON Schema (JSON workflows) the answer's JSON must match. */
  readonly responseSchema?: Readonly<Record<string, unknown>>;
  /** Tries after the first; absent, the engine's `maxAttempts` decides. */
  readonly retries?: number;
  readonly continueOnFailure: boolean;
}

/** Every text in a JSON value rendered with `r`. */
export const renderValue = (value: unknown, r: (text: string) => string): unknown => {
  if (typeof value === 'string') return r(value);
  if (Array.isArray(value)) return value.map((item) => renderValue(item, r));
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, renderValue(inner, r)]));
  return value;
};

/**
 * Renders an `http` step's URL, headers and body against the walk's variables (liquid, within the
 * walk's render budget). A JSON body is sent as JSON (`content-type: application/json` unless a
 * header names another). Throws what a template throws.
 */
export function renderHttpRequest(config: Pick<HttpStepConfig, 'method' | 'url' | 'headers' | 'body' | 'timeout'>, variables: Record<string, unknown>, budget?: RenderBudget): HttpStepRequest {
  return buildHttpRequest(config, (text) => renderTemplate(text, variables, { budget }));
}

/** An `http` step's request with each text passed through `r` (a code workflow's are used as they are). */
export function buildHttpRequest(config: Pick<HttpStepConfig, 'method' | 'url' | 'headers' | 'body' | 'timeout'>, r: (text: string) => string): HttpStepRequest {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(config.headers ?? {})) headers[name.toLowerCase()] = r(value);
  let body: string | undefined;
  if (typeof config.body === 'string') body = r(config.body);
  else if (config.body !== undefined) {
    body = JSON.stringify(renderValue(config.body, r));
    headers['content-type'] ??= 'application/json';
  }
  return { method: config.method, url: r(config.url).trim(), headers, ...(body !== undefined && { body }), timeoutMs: config.timeout ?? HTTP_STEP_DEFAULT_TIMEOUT_MS };
}

/** What `explain` shows of a request: its method and URL without query, fragment or credentials (header values never). */
export function describeRequest(request: Pick<HttpStepRequest, 'method' | 'url'>): string {
  try {
    const url = new URL(request.url);
    return `${request.method} ${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return `${request.method} (an invalid URL)`;
  }
}
