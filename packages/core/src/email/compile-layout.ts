import { templateSyntaxError } from '../templates/render.js';

const CONTENT_SLOT = /\{\{-?\s*content\s*-?\}\}/;
const LIQUID = /\{\{|\{%/;

export type CompiledLayout = { ok: true; type: 'html' | 'mjml'; html: string } | { ok: false; field: string; message: string };

/** Whether a layout's source is MJML: it starts with an `<mjml>` element. */
export const isMjml = (content: string) => /^\s*(<!--[\s\S]*?-->\s*)*<mjml[\s>]/i.test(content);

/**
 * A layout's HTML template, made once when it is saved: MJML compiled to HTML (its liquid outputs and
 * tags pass through the compiler as text), then checked as liquid and for its `{{ content }}` slot.
 */
export async function compileLayout(content: string, type: 'html' | 'mjml' | undefined): Promise<CompiledLayout> {
  const kind = type ?? (isMjml(content) ? 'mjml' : 'html');
  if (!CONTENT_SLOT.test(content)) return { ok: false, field: 'content', message: 'must hold the body\'s place, "{{ content }}"' };
  let html = content;
  if (kind === 'mjml') {
    const { default: mjml2html } = await import('mjml');
    let result: { html: string; errors: readonly { line: number; message: string }[] };
    try {
      result = await mjml2html(content, { validationLevel: 'soft', keepComments: false });
    } catch (error) {
      return { ok: false, field: 'content', message: `is not valid MJML: ${error instanceof Error ? error.message : String(error)}` };
    }
    // A liquid output in a typed attribute (`background-color="{{ brand.colors.primary }}"`) is a value only once rendered.
    const errors = result.errors.filter((e) => !LIQUID.test(e.message));
    if (errors.length > 0) {
      const listed = errors.slice(0, 3).map((e) => `line ${e.line}: ${e.message}`).join('; ');
      return { ok: false, field: 'content', message: `is not valid MJML: ${listed}${errors.length > 3 ? ` (and ${errors.length - 3} more)` : ''}` };
    }
    html = result.html;
  }
  const syntax = templateSyntaxError(html);
  if (syntax) return { ok: false, field: 'content', message: `is not a valid template: ${syntax}` };
  return { ok: true, type: kind, html };
}
