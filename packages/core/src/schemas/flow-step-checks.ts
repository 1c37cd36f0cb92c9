import type { z } from 'zod';
import { templateSyntaxError } from '../templates/render.js';
import type { Step } from './step.js';

type AddIssue = (path: (string | number)[], message: string) => void;

/** Every text in a JSON value, with its path. */
const textsOf = (value: unknown, path: (string | number)[]): [(string | number)[], string][] =>
  typeof value === 'string' ? [[path, value]] : typeof value === 'object' && value !== null ? Object.entries(value).flatMap(([key, inner]) => textsOf(inner, [...path, key])) : [];

/** An `http` step needs its request, a `branch` step its branches; no other step takes either. Templates (an http request's, a custom step's data) parse. */
export function checkFlowStep(step: Step, addIssue: AddIssue): void {
  const type = step.template.type;
  if (type === 'http' && step.http === undefined) addIssue(['http'], 'an http step needs { url } (and method, headers, body, …)');
  if (type !== 'http' && step.http !== undefined) addIssue(['http'], `a ${type} step takes no http request`);
  if (type === 'branch' && step.branch === undefined) addIssue(['branch'], 'a branch step needs { branches: [{ conditions, steps }] }');
  if (type !== 'branch' && step.branch !== undefined) addIssue(['branch'], `a ${type} step takes no branches`);
  const texts = [
    ...(step.http ? textsOf({ url: step.http.url, headers: step.http.headers, body: step.http.body }, ['http']) : []),
    ...(type === 'custom' ? textsOf(step.template.data ?? {}, ['template', 'data']) : []),
  ];
  for (const [path, text] of texts) {
    const error = templateSyntaxError(text);
    if (error) addIssue(path, `template does not parse: ${error}`);
  }
}

/**
 * A branch names steps of its own workflow that come after it, by `_id`; a branch step has no
 * variants (which branch runs is its whole decision).
 */
export function checkBranchRefs(steps: readonly Step[], ctx: z.RefinementCtx): void {
  steps.forEach((step, index) => {
    if (!step.branch) return;
    if (step.variants.length > 0) ctx.addIssue({ code: 'custom', path: ['steps', index, 'variants'], message: 'a branch step takes no variants' });
    const later = new Set(steps.slice(index + 1).flatMap((s) => (s._id === undefined ? [] : [s._id])));
    const check = (refs: readonly string[], path: (string | number)[]) =>
      refs.forEach((ref, r) => {
        if (!later.has(ref)) ctx.addIssue({ code: 'custom', path: ['steps', index, 'branch', ...path, r], message: `names no step after the branch: "${ref}" must be the _id of a later step of this workflow` });
      });
    step.branch.branches.forEach((branch, b) => check(branch.steps, ['branches', b, 'steps']));
    check(step.branch.default, ['default']);
  });
}
