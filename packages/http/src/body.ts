import { HttpError } from './errors.js';

/**
 * Reads a request body up to `limit` bytes as it streams in: a larger one (a chunked upload with no
 * length included) is cut there with a 413 and its connection closed, never buffered whole.
 */
export async function readBody(request: Request, limit: number): Promise<string> {
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw new HttpError(413, `The request body is larger than ${limit} bytes`, {}, { connection: 'close' });
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function parseBody(text: string, contentType: string | undefined): unknown {
  if (text.trim() === '') return undefined;
  if (contentType !== undefined && !/^application\/(.+\+)?json\b/i.test(contentType.trim())) {
    throw new HttpError(415, 'Request bodies must be JSON (Content-Type: application/json)');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new HttpError(400, 'The request body is not valid JSON');
  }
}

