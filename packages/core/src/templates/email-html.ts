import type { EmailBlock } from '../schemas/index.js';
import { escapeHtml } from './render.js';


/** Plain text of an HTML fragment: tags dropped, block ends as line breaks, entities decoded. */
export function htmlToText(html: string): string {
  return html
    .replace(/<(br|\/p|\/div|\/h[1-6]|\/li|\/tr)\s*\/?>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * An email's HTML and text parts. A string body is HTML as written; blocks become paragraphs (text)
 * and links styled as buttons (button), each with its alignment. The block texts were rendered with
 * HTML escaping of variables, so payload values cannot inject markup.
 */
export function renderEmailBody(content: string | readonly EmailBlock[]): { html: string; text: string } {
  if (typeof content === 'string') return { html: content, text: htmlToText(content) };
  const html = content
    .map((block) => {
      const align = block.styles?.textAlign ?? 'left';
      if (block.type === 'button') {
        const href = escapeHtml(block.url ?? '#');
        return `<p style="text-align:${align}"><a href="${href}" style="display:inline-block;padding:10px 18px;border-radius:6px;background:#2d6cdf;color:#ffffff;text-decoration:none">${block.content}</a></p>`;
      }
      return `<p style="text-align:${align}">${block.content}</p>`;
    })
    .join('\n');
  const text = content
    .map((block) => (block.type === 'button' ? `${htmlToText(block.content)}: ${block.url ?? ''}`.trim() : htmlToText(block.content)))
    .join('\n\n');
  return { html: `<!doctype html><html><body>${html}</body></html>`, text };
}
