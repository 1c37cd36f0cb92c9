import type { JsonObject } from '../schemas/index.js';
import { renderTemplate, type RenderBudget } from '../templates/render.js';
import { readPath } from '../util/path.js';

// `{{ payload.items }}` and nothing else around it: the value itself, not its text.
const ONE_OUTPUT = /^\s*\{\{\s*([A-Za-z_]\w*(?:\.[A-Za-z_]\w*|\[\d+\])*)\s*\}\}\s*$/;

function propValue(value: unknown, variables: Record<string, unknown>, budget: RenderBudget | undefined): unknown {
  if (typeof value === 'string') {
    const one = ONE_OUTPUT.exec(value);
    if (one) return readPath(variables, one[1]!) ?? undefined;
    // Not HTML-escaped: React escapes every text it renders.
    return renderTemplate(value, variables, { budget });
  }
  if (Array.isArray(value)) return value.map((item) => propValue(item, variables, budget));
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, propValue(inner, variables, budget)]));
  return value;
}

/**
 * A component's props as a step gives them, rendered with the step's variables: each text is liquid,
 * and a text that is one output alone (`{{ payload.items }}`) gives that value as it is (a list, a
 * number, an object), so a component can map over it.
 */
export const componentProps = (props: JsonObject | undefined, variables: Record<string, unknown>, budget?: RenderBudget): Record<string, unknown> =>
  props ? (propValue(props, variables, budget) as Record<string, unknown>) : {};
