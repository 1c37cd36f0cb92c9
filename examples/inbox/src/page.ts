/**
 * The inbox page's HTML; `config` is injected for the script: where the API is mounted, the
 * subscriber's Inbox session token and the VAPID public key browsers subscribe with — never the API
 * key or the VAPID private key, which stay on the server.
 */
export function inboxPage(config: { api: string; token: string; vapidPublicKey: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Tidings inbox</title>
<style>
  body { font-family: system-ui, sans-serif; margin: 0; background: #f4f5f7; color: #1d2433; }
  header { display: flex; justify-content: space-between; align-items: center; padding: 12px 24px; background: #fff; box-shadow: 0 1px 2px #0001; }
  #bell { position: relative; font-size: 22px; background: none; border: 0; cursor: pointer; }
  #unseen { position: absolute; top: -4px; right: -8px; background: #e5484d; color: #fff; font-size: 12px; border-radius: 10px; padding: 1px 6px; }
  #panel { max-width: 520px; margin: 16px auto; background: #fff; border-radius: 10px; box-shadow: 0 2px 10px #0002; }
  #feed { list-style: none; margin: 0; padding: 0; }
  #feed li { padding: 14px 18px; border-bottom: 1px solid #eceef2; }
  #feed li.unread { background: #f0f6ff; }
  #feed li.unread p::before { content: '●'; color: #2d6cdf; margin-right: 6px; font-size: 10px; }
  #feed p { margin: 0 0 8px; }
  .actions button { margin-right: 8px; border-radius: 6px; border: 1px solid #c9ced6; padding: 4px 10px; background: #fff; cursor: pointer; }
  .actions button.primary { background: #2d6cdf; border-color: #2d6cdf; color: #fff; }
  .actions button:disabled { opacity: .6; cursor: default; }
  #push { border-radius: 6px; border: 1px solid #c9ced6; padding: 4px 10px; background: #fff; cursor: pointer; }
  #push:disabled { opacity: .7; cursor: default; }
  #notice, #push-notice { max-width: 520px; margin: 16px auto 0; padding: 10px 14px; border-radius: 8px; background: #fff4e5; }
</style>
</head>
<body>
<header><strong>Acme app</strong><span><button id="push" hidden>Notify me in this browser</button> <button id="bell" aria-label="Notifications"><svg width="24" height="24" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true"><path d="M18 8a6 6 0 0 0-12 0c0 7-3 9-3 9h18s-3-2-3-9"/><path d="M13.73 21a2 2 0 0 1-3.46 0"/></svg><span id="unseen" hidden>0</span></button></span></header>
<p id="notice" role="status" hidden></p>
<p id="push-notice" role="status" hidden></p>
<section id="panel"><ul id="feed"></ul></section>
<script>window.TIDINGS = ${JSON.stringify(config).replace(/</g, '\\u003c')};</script>
<script type="module" src="/inbox.js"></script>
</body>
</html>`;
}
