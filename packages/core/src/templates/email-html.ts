import type { EmailBlock } from '../schemas/index.js';
import { blocksHtml } from '../email/compose-email.js';
import { textPart } from '../email/text-part.js';

/** Plain text of an HTML fragment (see `textPart`): block ends as line breaks, links as `text (url)`. */
export const htmlToText = textPart;

/**
 * An email body's HTML and text parts without a layout. A string body is HTML as written; blocks
 * become paragraphs and buttons, each with its alignment. The block texts were rendered with HTML
 * escaping of variables, so payload values cannot inject markup.
 */
export function renderEmailBody(content: string | readonly EmailBlock[]): { html: string; text: string } {
  if (typeof content === 'string') return { html: content, text: textPart(content) };
  const html = blocksHtml(content);
  return { html: `<!doctype html><html><body>${html}</body></html>`, text: textPart(html) };
}
