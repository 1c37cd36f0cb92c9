import type { Workflow } from '../../schemas/index.js';

/** What of the environment's look a batch's messages can use, so a batch reads only that. */
export interface LookNeeds {
  readonly brands: boolean;
  readonly catalogs: boolean;
  readonly layouts: boolean;
}

export const EVERY_LOOK: LookNeeds = { brands: true, catalogs: true, layouts: true };

/** A Liquid tag that renders a partial. */
const RENDERS = /\{%-?\s*(render|include)\b/;
/** A Liquid output or tag that names `t` (the filter, or `t.key`), or the `locale` variable. */
const TRANSLATES = /\{\{[^}]*\bt\b[^}]*\}\}|\{%[^%]*\bt\b[^%]*%\}|\blocale\b/;

/**
 * What the workflows' messages can use: an email step uses everything (its layout sees the brand and
 * `t`); a code workflow translates with `t()` at any step; otherwise only what a template names.
 * Layouts and partials are read when an email can be sent (`emailIntegration`) or a template renders a partial.
 */
export function lookNeeds(workflows: Iterable<Workflow>, emailIntegration: boolean): LookNeeds {
  let brands = false;
  let catalogs = false;
  let email = false;
  let partials = false;
  for (const workflow of workflows) {
    const sendsEmail = workflow.steps.some((step) => step.template.type === 'email' || (step.variants ?? []).some((v) => v.template.type === 'email'));
    const text = JSON.stringify(workflow.steps);
    email ||= sendsEmail;
    brands ||= sendsEmail || text.includes('brand');
    catalogs ||= sendsEmail || workflow._creatorId === 'code' || TRANSLATES.test(text);
    partials ||= RENDERS.test(text);
  }
  return { brands, catalogs, layouts: (email && emailIntegration) || partials };
}
