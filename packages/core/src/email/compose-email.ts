import juice from 'juice';
import type { EmailBlock } from '../schemas/index.js';
import { escapeHtml, renderTemplate, type RenderBudget } from '../templates/render.js';
import { langOf } from './text-direction.js';
import { textPart } from './text-part.js';

/** The layout an email is rendered in: its HTML template (MJML already compiled), or none. */
export interface LayoutTemplate {
  readonly identifier: string;
  readonly html: string;
  /** MJML output inlines its own styles: only HTML layouts go through juice. */
  readonly type: 'html' | 'mjml';
}

export interface EmailToCompose {
  /** The step's rendered body: HTML, or blocks. */
  readonly body: string | readonly EmailBlock[];
  readonly subject?: string | undefined;
  /** Shown after the subject in mail clients' lists, hidden in the message. */
  readonly preheader?: string | undefined;
  /** null: the body alone in a bare document. */
  readonly layout: LayoutTemplate | null;
  /** The step's texts for the layout's named slots, rendered (HTML), by slot name. */
  readonly slots?: Readonly<Record<string, string>> | undefined;
  /** What the layout's liquid sees (the step's variables: subscriber, payload, tenant, brand, …). */
  readonly variables: Record<string, unknown>;
  readonly locale?: string | null | undefined;
  readonly budget?: RenderBudget | undefined;
}

export interface ComposedEmail {
  readonly html: string;
  readonly text: string;
}

// What the layout renders in place of `{{ content }}`: only characters HTML escaping leaves alone,
// so the body goes in after the layout's own outputs were escaped, and only it stays unescaped.
const SLOT = 'tidings-content-slot-3c9d1f';
/** A named slot's place, made the same way (slot names are letters, digits and "_"). */
const slotMark = (name: string) => `tidings-slot-${name}-3c9d1f`;

/** Blocks as HTML: paragraphs and buttons (in the brand's primary colour), each with its alignment. */
export function blocksHtml(blocks: readonly EmailBlock[], primary = '#2d6cdf'): string {
  return blocks
    .map((block) => {
      const align = block.styles?.textAlign ?? 'left';
      if (block.type === 'button') {
        const href = escapeHtml(block.url ?? '#');
        return `<p style="text-align:${align}"><a href="${href}" style="display:inline-block;padding:10px 18px;border-radius:6px;background:${primary};color:#ffffff;text-decoration:none">${block.content}</a></p>`;
      }
      return `<p style="text-align:${align}">${block.content}</p>`;
    })
    .join('\n');
}

/** The hidden preheader, followed by spacing so that clients do not show the body's first words after it. */
const preheaderHtml = (text: string) =>
  `<div data-tidings-preheader style="display:none;font-size:1px;line-height:1px;max-height:0;max-width:0;opacity:0;overflow:hidden;mso-hide:all;">${escapeHtml(text)}${'&#847;&zwnj;&nbsp;'.repeat(40)}</div>`;

const HTML_TAG = /<html\b[^>]*>/i;
const BODY_TAG = /<body\b[^>]*>/i;

/** The document with `lang`/`dir` on its html element (unless the layout set them) and the preheader first in its body. */
function finish(html: string, lang: { lang: string; dir: string }, preheader: string | undefined): string {
  let out = HTML_TAG.test(html) ? html : `<!doctype html><html><head><meta charset="utf-8"></head><body>${html}</body></html>`;
  out = out.replace(HTML_TAG, (tag) => {
    // MJML writes `lang="und" dir="auto"` when its source names none: those are not the layout's choice.
    let next = tag.replace(/\slang="und"/i, '').replace(/\sdir="auto"/i, '');
    if (!/\slang=/i.test(next)) next = next.replace(/>$/, ` lang="${escapeHtml(lang.lang)}">`);
    if (!/\sdir=/i.test(next)) next = next.replace(/>$/, ` dir="${lang.dir}">`);
    return next;
  });
  if (preheader) out = BODY_TAG.test(out) ? out.replace(BODY_TAG, (tag) => `${tag}${preheaderHtml(preheader)}`) : out.replace(HTML_TAG, (tag) => `${tag}${preheaderHtml(preheader)}`);
  return out;
}

/**
 * An email as sent: the body in its layout (and the step's named slots in theirs), the layout's
 * liquid rendered with HTML escaping (under the walk's render budget), the CSS of an HTML layout
 * inlined, `lang` and `dir` from the locale, the hidden preheader, and the plain-text part made
 * from the result. Pure: the same input gives the same bytes, so a preview is the email that is sent.
 */
export function composeEmail(input: EmailToCompose): ComposedEmail {
  const brand = input.variables['brand'] as { colors?: { primary?: string } } | undefined;
  const body = typeof input.body === 'string' ? input.body : blocksHtml(input.body, brand?.colors?.primary);
  const lang = langOf(input.locale);
  if (!input.layout) {
    const html = inlined(finish(body, lang, input.preheader || undefined), 'html');
    return { html, text: textPart(html) };
  }
  // A slot whose text rendered empty is unfilled: the layout sees no variable, and its `{% if %}` fallback shows.
  const filled = Object.entries(input.slots ?? {}).filter(([, html]) => html.trim() !== '');
  const marks = Object.fromEntries(filled.map(([name]) => [name, slotMark(name)]));
  const variables = { ...input.variables, ...marks, content: SLOT, subject: input.subject ?? '', preheader: input.preheader ?? '', locale: lang.lang };
  let around = finish(renderTemplate(input.layout.html, variables, { html: true, budget: input.budget }), lang, input.preheader || undefined);
  for (const [name, html] of filled) around = around.split(slotMark(name)).join(html);
  const joined = around.split(SLOT).join(body);
  const html = inlined(joined, input.layout.type);
  return { html, text: textPart(html) };
}

/** An HTML layout's `<style>` inlined; MJML inlined its own when compiled. */
const inlined = (html: string, type: LayoutTemplate['type']) => (type !== 'mjml' && /<style\b/i.test(html) ? juice(html) : html);
