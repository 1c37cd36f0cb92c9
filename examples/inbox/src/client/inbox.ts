/// <reference lib="dom" />
// The inbox page: a bell with the unseen count, the feed, read/unread, CTA buttons, live updates.
// Plain DOM; bundled by esbuild when the example server starts.

interface CtaButton {
  type: 'primary' | 'secondary';
  content: string;
}
interface InboxMessage {
  _id: string;
  content: string;
  read: boolean;
  seen: boolean;
  createdAt: string;
  cta: { data?: { url?: string }; action?: { status?: string; buttons?: CtaButton[]; result?: { type?: string } } };
}
interface Config {
  api: string;
  apiKey: string;
  subscriberId: string;
}

const config = (window as unknown as { TIDINGS: Config }).TIDINGS;
const headers = { authorization: `ApiKey ${config.apiKey}`, 'content-type': 'application/json' };
const base = `${config.api}/v1/subscribers/${encodeURIComponent(config.subscriberId)}`;
const messages = new Map<string, InboxMessage>();

const bell = document.querySelector<HTMLButtonElement>('#bell')!;
const badge = document.querySelector<HTMLSpanElement>('#unseen')!;
const list = document.querySelector<HTMLUListElement>('#feed')!;
const panel = document.querySelector<HTMLElement>('#panel')!;

async function call(path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${base}${path}`, { method: body === undefined ? 'GET' : 'POST', headers, ...(body !== undefined && { body: JSON.stringify(body) }) });
  if (!response.ok) throw new Error(`${response.status} ${await response.text()}`);
  return ((await response.json()) as { data: unknown }).data;
}

function setCount(unseen: number) {
  badge.textContent = String(unseen);
  badge.hidden = unseen === 0;
  bell.setAttribute('aria-label', `Notifications, ${unseen} unseen`);
}

function render() {
  const sorted = [...messages.values()].sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : a._id < b._id ? 1 : -1));
  list.replaceChildren(
    ...sorted.map((m) => {
      const item = document.createElement('li');
      item.className = m.read ? 'read' : 'unread';
      item.dataset['id'] = m._id;
      const text = document.createElement('p');
      text.textContent = m.content;
      item.append(text);
      const actions = document.createElement('div');
      actions.className = 'actions';
      const done = m.cta.action?.status === 'done';
      for (const button of m.cta.action?.buttons ?? []) {
        const b = document.createElement('button');
        b.className = `cta ${button.type}`;
        b.textContent = done && m.cta.action?.result?.type === button.type ? `${button.content} ✓` : button.content;
        b.disabled = done;
        b.onclick = () => void act(m, button.type);
        actions.append(b);
      }
      const toggle = document.createElement('button');
      toggle.className = 'toggle-read';
      toggle.textContent = m.read ? 'Mark unread' : 'Mark read';
      toggle.onclick = () => void mark(m, m.read ? 'unread' : 'read');
      actions.append(toggle);
      item.append(actions);
      return item;
    }),
  );
}

function upsert(message: InboxMessage) {
  messages.set(message._id, message);
  render();
}

async function mark(message: InboxMessage, markAs: 'read' | 'unread' | 'seen') {
  for (const updated of (await call('/messages/mark-as', { messageId: message._id, markAs })) as InboxMessage[]) upsert(updated);
}

async function act(message: InboxMessage, type: CtaButton['type']) {
  upsert((await call(`/messages/${message._id}/actions/${type}`, { status: 'done', payload: {} })) as InboxMessage);
}

/** Reads the subscriber's Server-Sent Events with fetch (EventSource cannot send the API key header). */
async function listen() {
  const response = await fetch(`${base}/events`, { headers });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (!event || data === undefined) continue;
      const parsed = JSON.parse(data) as unknown;
      if (event === 'counts') setCount((parsed as { unseen: number }).unseen);
      if (event === 'message' || event === 'update') upsert(parsed as InboxMessage);
    }
  }
}

bell.onclick = async () => {
  panel.hidden = !panel.hidden;
  const unseen = [...messages.values()].filter((m) => !m.seen);
  if (!panel.hidden && unseen.length > 0) {
    for (const updated of (await call('/messages/mark-as', { messageId: unseen.map((m) => m._id), markAs: 'seen' })) as InboxMessage[]) upsert(updated);
  }
};

const feed = (await (await fetch(`${base}/notifications/feed?limit=50`, { headers })).json()) as { data: InboxMessage[] };
for (const message of feed.data) messages.set(message._id, message);
render();
document.body.dataset['ready'] = 'true';
void listen();
export {};
