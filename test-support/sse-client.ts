/** A test's client of `GET /v1/subscribers/{id}/events`: every event it has heard, in order. */
export interface SseClient {
  readonly events: { event: string; data: unknown; at: number }[];
  /** The data of the last event of this name, if any. */
  last(event: string): unknown;
  close(): void;
}

/** Opens the subscriber's live stream and keeps reading it in the background until `close()`. */
export async function openSse(baseUrl: string, subscriberId: string, apiKey: string): Promise<SseClient> {
  const controller = new AbortController();
  const response = await fetch(`${baseUrl}/v1/subscribers/${encodeURIComponent(subscriberId)}/events`, { headers: { authorization: `ApiKey ${apiKey}` }, signal: controller.signal });
  if (response.status !== 200) throw new Error(`live stream answered ${response.status}: ${await response.text()}`);
  const reader = response.body!.getReader();
  const events: SseClient['events'] = [];
  const decoder = new TextDecoder();
  void (async () => {
    let text = '';
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) return;
      text += decoder.decode(value, { stream: true });
      for (let end = text.indexOf('\n\n'); end >= 0; end = text.indexOf('\n\n')) {
        const block = text.slice(0, end);
        text = text.slice(end + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (event && data) events.push({ event, data: JSON.parse(data), at: Date.now() });
      }
    }
  })();
  return {
    events,
    last: (event) => events.filter((e) => e.event === event).at(-1)?.data,
    close: () => controller.abort(),
  };
}
