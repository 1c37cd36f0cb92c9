import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Hono, type Context } from 'hono';

export interface ActivityAppOptions {
  /**
   * Where the page finds the HTTP API (`createHttpApp`): a path relative to the page, a path from the
   * root (`/api`) or a URL. @default '..' (the API one level above the page, as `tidings serve` mounts
   * it at `/activity`)
   */
  readonly api?: string;
}

/** The built page (scripts/build-activity.mjs): beside the bundle in `dist/`, or the package's `activity/` from the sources. */
const ASSET_DIRS = ['../activity/', '../../activity/'];

const ASSETS = {
  'activity.js': 'text/javascript; charset=utf-8',
  'activity.css': 'text/css; charset=utf-8',
} as const;
type Asset = keyof typeof ASSETS;

let loaded: Record<Asset, string> | null = null;

/** The page's script and style, read once. */
function assets(): Record<Asset, string> {
  if (loaded) return loaded;
  const dir = ASSET_DIRS.map((d) => new URL(d, import.meta.url)).find((url) => existsSync(new URL('activity.js', url)));
  if (!dir) throw new Error('the activity page is not built: run `pnpm --filter @tidings/http build:activity`');
  const read = (name: Asset) => readFileSync(fileURLToPath(new URL(name, dir)), 'utf8');
  loaded = { 'activity.js': read('activity.js'), 'activity.css': read('activity.css') };
  return loaded;
}

const escapeAttribute = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** The page: where the API is rides in a meta tag, so the page runs no inline script. */
function page(api: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="tidings-api" content="${escapeAttribute(api)}">
<title>Tidings activity</title>
<link rel="stylesheet" href="activity.css">
</head>
<body>
<div id="app"></div>
<script type="module" src="activity.js"></script>
</body>
</html>
`;
}

/**
 * The page holds no data until it is given the API key, so its files are public. It reaches the API
 * only (`connect-src`), runs only its own script, and is never framed.
 */
function securityHeaders(api: string): Record<string, string> {
  const origin = /^https?:\/\//i.test(api) ? ` ${new URL(api).origin}` : '';
  return {
    'content-security-policy': `default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: https:; frame-src 'self'; connect-src 'self'${origin}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-cache',
  };
}

/**
 * The activity page as a Hono app, to mount under a path of its own (`app.route('/activity',
 * activityApp())`): the page at that path, its script and style beside it. The page asks for the API
 * key once and keeps it in the tab's sessionStorage; every call it makes to the API carries it
 * (`Authorization: ApiKey …`).
 */
export function activityApp(options: ActivityAppOptions = {}) {
  const api = options.api ?? '..';
  const headers = securityHeaders(api);
  const app = new Hono();
  app.get('*', (c: Context) => {
    const base = c.req.routePath.replace(/\/?\*$/, '');
    const rest = c.req.path.slice(base.length);
    // Relative links need the trailing slash: `/activity` → `/activity/`.
    if (rest === '') return c.redirect(`${base.slice(base.lastIndexOf('/') + 1)}/`, 308);
    if (rest === '/') return c.html(page(api), 200, headers);
    const name = rest.slice(1);
    if (name in ASSETS) return c.body(assets()[name as Asset], 200, { ...headers, 'content-type': ASSETS[name as Asset] });
    return c.notFound();
  });
  return app;
}
