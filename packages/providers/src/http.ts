import { ProviderError } from '@tidings/core';

export interface PostOptions {
  readonly headers?: Record<string, string>;
  /** @default 10_000 */
  readonly timeoutMs?: number;
}

/**
 * POSTs JSON and returns the response text. Network failures, timeouts, 429 and 5xx throw a
 * retryable ProviderError; other non-2xx answers throw a permanent one.
 */
export async function postJson(url: string, body: unknown, options: PostOptions = {}): Promise<{ status: number; text: string }> {
  let response: Response;
  const payload = JSON.stringify(body);
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...options.headers },
      body: payload,
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
    });
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    throw new ProviderError(timedOut ? `${new URL(url).host} did not answer in time` : `could not reach ${safeHost(url)}: ${(error as Error).message}`, {
      retryable: true,
      code: timedOut ? 'timeout' : 'network_error',
      cause: error,
    });
  }
  const text = await response.text().catch(() => '');
  if (!response.ok) {
    const retryable = response.status === 429 || response.status >= 500;
    throw new ProviderError(`${safeHost(url)} answered ${response.status}${text ? `: ${text.slice(0, 200)}` : ''}`, {
      retryable,
      status: response.status,
    });
  }
  return { status: response.status, text };
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the webhook';
  }
}
