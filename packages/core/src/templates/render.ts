import { Liquid, type Template } from 'liquidjs';

const liquid = new Liquid({ strictFilters: true, cache: false, ownPropertyOnly: true });
// For HTML bodies: every `{{ }}` output is HTML-escaped, so payload values cannot inject markup.
const htmlLiquid = new Liquid({ strictFilters: true, cache: false, ownPropertyOnly: true, outputEscape: 'escape' });

// Parsing dominates rendering; workflows reuse a handful of texts, so parsed forms are kept (bounded).
const parsed = new Map<string, Template[]>();
const MAX_CACHED = 5_000;

// Escaping is decided when a template is parsed, so each engine keeps its own parsed forms.
function parse(text: string, html = false): Template[] {
  const key = html ? `html\u0000${text}` : text;
  let templates = parsed.get(key);
  if (!templates) {
    templates = (html ? htmlLiquid : liquid).parse(text);
    if (parsed.size >= MAX_CACHED) parsed.delete(parsed.keys().next().value as string);
    parsed.set(key, templates);
  }
  return templates;
}

/** The parse error of a liquid template, or null when it parses. */
export function templateSyntaxError(text: string): string | null {
  if (!text.includes('{')) return null;
  try {
    parse(text);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message.split('\n')[0]! : String(error);
  }
}

/**
 * Renders a liquid template against `variables`; text without `{` is returned as is. With
 * `{ html: true }` every output is HTML-escaped.
 */
export function renderTemplate(text: string, variables: Record<string, unknown>, options: { html?: boolean } = {}): string {
  if (!text.includes('{')) return text;
  return (options.html ? htmlLiquid : liquid).renderSync(parse(text, options.html), variables) as string;
}
