/// <reference lib="dom" />
// The inbox page: a bell with the unseen count, the feed, read/unread, CTA buttons, live updates.
// Plain DOM; bundled by esbuild when the example server starts.
//
// The page holds one credential: the subscriber's Inbox session token, which the app's server opened
// for it (`POST /v1/inbox/session`). It reaches only this subscriber's notifications, through Novu's
// Inbox routes (`/v1/inbox/…`, `Authorization: Bearer <token>`) and the live socket (`?token=`). The
// environment's API key never reaches the browser.
import { browserPushButton } from './browser-push.js';

interface Action {
  label: string;
  isCompleted: boolean;
}
/** A notification as the Inbox routes answer it (Novu's `InboxNotification`, the members used here). */
interface Notification {
  id: string;
  body: string;
  isRead: boolean;
  isSeen: boolean;
  createdAt: string;
  primaryAction?: Action;
  secondaryAction?: Action;
}
interface Config {
  /** Where the Tidings API is mounted (same origin). */
  api: string;
  /** The subscriber's Inbox session token. */
  token: string;
  /** The VAPID public key browsers subscribe to push with (`applicationServerKey`). */
  vapidPublicKey: string;
}

const config = (window as unknown as { TIDINGS: Config }).TIDINGS;
const headers = { authorization: `Bearer ${config.token}`, 'content-type': 'application/json' };
const inbox = `${config.api}/v1/inbox`;
const notifications = new Map<string, Notification>();

const bell = document.querySelector<HTMLButtonElement>('#bell')!;
const badge = document.querySelector<HTMLSpanElement>('#unseen')!;
const list = document.querySelector<HTMLUListElement>('#feed')!;
const panel = document.querySelector<HTMLElement>('#panel')!;
const notice = document.querySelector<HTMLParagraphElement>('#notice')!;

async function call(method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${inbox}${path}`, { method, headers, ...(body !== undefined && { body: JSON.stringify(body) }) });
  if (response.status === 401) {
    // The session expired (30 days) or the server's key changed: the page's server opens a new one.
    notice.textContent = 'Your session has ended: reload the page.';
    notice.hidden = false;
  }
  if (!response.ok) throw new Error(`${response.status} ${await response.text()}`);
  return response.status === 204 ? undefined : ((await response.json()) as { data: unknown }).data;
}

function setCount(unseen: number) {
  badge.textContent = String(unseen);
  badge.hidden = unseen === 0;
  bell.setAttribute('aria-label', `Notifications, ${unseen} unseen`);
}

function render() {
  const sorted = [...notifications.values()].sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : a.id < b.id ? 1 : -1));
  list.replaceChildren(
    ...sorted.map((n) => {
      const item = document.createElement('li');
      item.className = n.isRead ? 'read' : 'unread';
      item.dataset['id'] = n.id;
      const text = document.createElement('p');
      text.textContent = n.body;
      item.append(text);
      const actions = document.createElement('div');
      actions.className = 'actions';
      const done = Boolean(n.primaryAction?.isCompleted || n.secondaryAction?.isCompleted);
      for (const [type, action] of [['primary', n.primaryAction], ['secondary', n.secondaryAction]] as const) {
        if (!action) continue;
        const b = document.createElement('button');
        b.className = `cta ${type}`;
        b.textContent = action.isCompleted ? `${action.label} ✓` : action.label;
        b.disabled = done;
        b.onclick = () => void upsert(call('PATCH', `/notifications/${n.id}/complete`, { actionType: type }));
        actions.append(b);
      }
      const toggle = document.createElement('button');
      toggle.className = 'toggle-read';
      toggle.textContent = n.isRead ? 'Mark unread' : 'Mark read';
      toggle.onclick = () => void upsert(call('PATCH', `/notifications/${n.id}/${n.isRead ? 'unread' : 'read'}`));
      actions.append(toggle);
      item.append(actions);
      return item;
    }),
  );
}

async function upsert(changed: Promise<unknown>) {
  const notification = (await changed) as Notification;
  notifications.set(notification.id, notification);
  render();
}

/** Reads the newest page of the feed (not archived, not snoozed) and the unseen count. */
async function refresh() {
  const [feed, counts] = await Promise.all([
    call('GET', '/notifications?limit=50') as Promise<Notification[]>,
    call('GET', `/notifications/count?filters=${encodeURIComponent(JSON.stringify([{ seen: false, archived: false, snoozed: false }]))}`) as Promise<{ count: number }[]>,
  ]);
  notifications.clear();
  for (const n of feed) notifications.set(n.id, n);
  render();
  setCount(counts[0]!.count);
}

let refreshing: Promise<void> | null = null;
let again = false;
/** A refresh now, or once more after the one running: a burst of live events is one or two reads. */
function scheduleRefresh() {
  if (refreshing) {
    again = true;
    return;
  }
  refreshing = refresh()
    .catch((error: unknown) => console.error(error))
    .finally(() => {
      refreshing = null;
      if (again) {
        again = false;
        scheduleRefresh();
      }
    });
}

/**
 * The live socket: a plain WebSocket (a browser cannot send an Authorization header on one, so the
 * token goes in the query), served by the Tidings server beside its routes. It sends
 * `notification_received` for a new message, `unseen_count_changed` and `unread_count_changed` after
 * any change (here or in another tab). Resolves once open; reconnects (and re-reads) when dropped.
 */
function connect(): Promise<void> {
  const url = new URL(`${config.api}/live`, location.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.searchParams.set('token', config.token);
  return new Promise((resolve) => {
    const socket = new WebSocket(url);
    const keepAlive = setInterval(() => socket.readyState === WebSocket.OPEN && socket.send('ping'), 25_000);
    socket.onopen = () => resolve();
    socket.onmessage = (frame) => {
      if (frame.data === 'pong') return;
      const { event, data } = JSON.parse(String(frame.data)) as { event: string; data: { unseenCount?: number } };
      if (event === 'unseen_count_changed') setCount(data.unseenCount ?? 0);
      // A new message, or one changed elsewhere (another tab): read the feed again.
      if (event === 'notification_received' || event === 'unread_count_changed') scheduleRefresh();
    };
    socket.onclose = () => {
      clearInterval(keepAlive);
      resolve();
      // Not with a session that has ended: reloading the page is the way on.
      if (notice.hidden) setTimeout(() => void connect().then(scheduleRefresh), 2_000);
    };
  });
}

bell.onclick = async () => {
  panel.hidden = !panel.hidden;
  const unseen = [...notifications.values()].filter((n) => !n.isSeen);
  if (!panel.hidden && unseen.length > 0) {
    await call('POST', '/notifications/seen', { notificationIds: unseen.map((n) => n.id) });
    for (const n of unseen) notifications.set(n.id, { ...n, isSeen: true });
  }
};

browserPushButton(config.vapidPublicKey);

// The socket first, then the feed: nothing delivered in between is missed.
await connect();
await refresh();
document.body.dataset['ready'] = 'true';
export {};
