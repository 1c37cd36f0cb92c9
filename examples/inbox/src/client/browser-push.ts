/// <reference lib="dom" />
// "Notify me in this browser": registers the service worker (`/sw.js`), subscribes this browser to
// push with the application's VAPID public key, and gives the subscription to the app's server, which
// keeps it as the signed-in subscriber's web-push device token. From then on a workflow's push step
// reaches this browser, through its push service, even with the page closed.

/** A base64url VAPID key as the bytes `applicationServerKey` takes. */
function keyBytes(base64url: string): Uint8Array<ArrayBuffer> {
  const binary = atob(base64url.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

async function subscribe(vapidPublicKey: string): Promise<void> {
  if ((await Notification.requestPermission()) !== 'granted') throw new Error('notifications are blocked for this site (see the address bar)');
  await navigator.serviceWorker.register('/sw.js');
  const registration = await navigator.serviceWorker.ready;
  const subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(vapidPublicKey) });
  const response = await fetch('/push/subscriptions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(subscription) });
  if (!response.ok) throw new Error(`the server refused the subscription: ${response.status}`);
}

/**
 * Shows the button where the browser can do push (a secure context: https, or localhost), and turns
 * push on when clicked, saying under the header what went wrong when it could not.
 */
export function browserPushButton(vapidPublicKey: string): void {
  const button = document.querySelector<HTMLButtonElement>('#push')!;
  const notice = document.querySelector<HTMLParagraphElement>('#push-notice')!;
  if (!window.isSecureContext || !('serviceWorker' in navigator) || !('PushManager' in window) || !('Notification' in window)) return;
  button.hidden = false;
  button.onclick = async () => {
    button.disabled = true;
    notice.hidden = true;
    try {
      await subscribe(vapidPublicKey);
      button.textContent = 'Notifications on in this browser';
      button.dataset['state'] = 'on';
    } catch (error) {
      button.disabled = false;
      notice.textContent = `Browser notifications could not be turned on: ${(error as Error).message}`;
      notice.hidden = false;
    }
  };
}
