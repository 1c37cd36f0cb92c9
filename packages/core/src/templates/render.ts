import { Liquid, type Template } from 'liquidjs';

const liquid = new Liquid({ strictFilters: true, cache: false, ownPropertyOnly: true });

// Parsing dominates rendering; workflows reuse a handful of texts, so parsed forms are kept (bounded).
const parsed = new Map<string, Template[]>();
const MAX_CACHED = 5_000;

function parse(text: string): Template[] {
  let templates = parsed.get(text);
  if (!templates) {
    templates = liquid.parse(text);
    if (parsed.size >= MAX_CACHED) parsed.delete(parsed.keys().next().value as string);
    parsed.set(text, templates);
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

/** Renders a liquid template against `variables`; text without `{` is returned as is. */
export function renderTemplate(text: string, variables: Record<string, unknown>): string {
  if (!text.includes('{')) return text;
  return liquid.renderSync(parse(text), variables) as string;
}
