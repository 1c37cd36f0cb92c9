import { TidingsError, type FieldIssue } from '../errors.js';
import type { Step } from '../schemas/index.js';

/**
 * A React component an email step names (`template.component`): a function of its props, as React
 * Email's templates are. Typed without React, so `@tidings/core` needs React only where one is given.
 */
export type EmailComponent = (props: never) => unknown;

/** The components JSON email steps may name, by name (`createTidings({ emailComponents: { Welcome } })`). */
export type EmailComponents = Readonly<Record<string, EmailComponent>>;

const NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,99}$/;

/** `memo()` and `forwardRef()` make objects React renders like functions. */
const isComponent = (value: unknown) => typeof value === 'function' || (typeof value === 'object' && value !== null && '$$typeof' in value);

/** The registered components, each checked: a name a step can spell and a component React can render. */
export function emailComponentsOf(given: unknown): EmailComponents | undefined {
  if (given === undefined) return undefined;
  const refuse = (path: string, message: string) => new TidingsError('validation_failed', `Invalid engine options: ${path}: ${message}`, { issues: [{ path, message }] });
  if (typeof given !== 'object' || given === null || Array.isArray(given)) throw refuse('emailComponents', 'must be an object of React components by name');
  for (const [name, component] of Object.entries(given)) {
    if (!NAME.test(name)) throw refuse(`emailComponents.${name}`, 'a name must be letters, digits, "_", "." or "-" (starting with a letter or "_"), at most 100 characters');
    if (!isComponent(component)) throw refuse(`emailComponents.${name}`, 'must be a React component (a function of its props)');
  }
  return given as EmailComponents;
}

/** Why a step's component name is not one of these, or null when it is. */
export function unknownComponent(name: string, components: EmailComponents | undefined): string | null {
  if (components && Object.hasOwn(components, name)) return null;
  const known = Object.keys(components ?? {});
  return known.length === 0
    ? `the email component "${name}" is not registered: no components are (createTidings({ emailComponents }))`
    : `the email component "${name}" is not registered (registered: ${known.join(', ')})`;
}

/**
 * The steps (and variants) of a workflow that name a component not registered, as issues naming the
 * field: with components registered, a workflow is checked when it is saved, not at its first send.
 */
export function componentIssues(steps: readonly Step[], components: EmailComponents | undefined): FieldIssue[] {
  if (!components) return [];
  const issues: FieldIssue[] = [];
  steps.forEach((step, s) => {
    const forms: [string, Pick<Step, 'template'>][] = [[`steps[${s}]`, step], ...step.variants.map((v, i): [string, Pick<Step, 'template'>] => [`steps[${s}].variants[${i}]`, v])];
    for (const [path, form] of forms) {
      const name = form.template.component;
      const why = name === undefined ? null : unknownComponent(name, components);
      if (why) issues.push({ path: `${path}.template.component`, message: why });
    }
  });
  return issues;
}
