import type { Brand } from '@tidings/core/schemas';

/** HTML-escapes text for element content and attribute values. */
export const esc = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

const COLOR = /^(#[0-9a-fA-F]{3,8}|[a-zA-Z]+)$/;
const color = (value: string | undefined, fallback: string) => (value && COLOR.test(value) ? value : fallback);

/**
 * A whole page in the brand's colours and logo: server-rendered, no script, readable without CSS,
 * labels on every control and a visible focus ring.
 */
export function page(options: { title: string; brand: Omit<Brand, 'updatedAt'> | null; lang: string; body: string }): string {
  const { brand } = options;
  const primary = color(brand?.colors?.primary, '#2d6cdf');
  const background = color(brand?.colors?.background, '#f4f5f7');
  const text = color(brand?.colors?.text, '#1f2328');
  return `<!doctype html>
<html lang="${esc(options.lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${esc(options.title)}</title>
<style>
body{margin:0;background:${background};color:${text};font:16px/1.5 -apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,Helvetica,Arial,sans-serif}
main{max-width:560px;margin:0 auto;padding:32px 16px}
.card{background:#fff;border-radius:8px;padding:24px;box-shadow:0 1px 3px rgba(0,0,0,.08)}
h1{font-size:1.4rem;margin:0 0 12px}
img.logo{height:32px;margin-bottom:16px}
button{background:${primary};color:#fff;border:0;border-radius:6px;padding:10px 18px;font-size:1rem;cursor:pointer}
button.secondary{background:#fff;color:${primary};border:1px solid ${primary}}
button:focus-visible,input:focus-visible,a:focus-visible{outline:3px solid ${primary};outline-offset:2px}
fieldset{border:1px solid #d0d7de;border-radius:6px;margin:0 0 16px;padding:12px 16px}
legend{font-weight:600;padding:0 4px}
label{display:inline-flex;align-items:center;gap:6px;margin:4px 16px 4px 0}
.muted{color:#57606a;font-size:.9rem}
fieldset p.muted{margin:0 0 4px}
.fixed{color:#57606a}
footer{margin-top:16px;font-size:.8rem;color:#57606a;text-align:center}
</style>
</head>
<body>
<main>
${brand?.logoUrl ? `<img class="logo" src="${esc(brand.logoUrl)}" alt="${esc(brand.name ?? '')}">` : ''}
<div class="card">
${options.body}
</div>
${brand?.footer ? `<footer>${esc(brand.footer)}</footer>` : ''}
</main>
</body>
</html>`;
}
