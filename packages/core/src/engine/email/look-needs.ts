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

/** What one workflow's steps use, worked out once per workflow object (a batch's workflows are read anew, then shared by its walks). */
const uses = new WeakMap<Workflow, { email: boolean; brand: boolean; translates: boolean; renders: boolean }>();
function usesOf(workflow: Workflow) {
  let found = uses.get(workflow);
  if (!found) {
    const text = JSON.stringify(workflow.steps);
    const email = workflow.steps.some((step) => step.template.type === 'email' || (step.variants ?? []).some((v) => v.template.type === 'email'));
    uses.set(workflow, (found = { email, brand: text.includes('brand'), translates: TRANSLATES.test(text), renders: RENDERS.test(text) }));
  }
  return found;
}

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
    const uses = usesOf(workflow);
    email ||= uses.email;
    brands ||= uses.email || uses.brand;
    catalogs ||= uses.email || workflow._creatorId === 'code' || uses.translates;
    partials ||= uses.renders;
  }
  return { brands, catalogs, layouts: (email && emailIntegration) || partials };
}
