import { RENDER_BUDGET_MS, RenderBudgetSpent, starved, type RenderBudget } from '../templates/render.js';
import type { EmailComponent } from './email-components.js';

type Render = (component: EmailComponent, props: Record<string, unknown>) => Promise<string>;

let loading: Promise<Render> | undefined;

/**
 * React and `@react-email/render`, imported when the first component is rendered: they are optional
 * peers of `@tidings/core`, needed only by an app that registers components.
 */
function renderer(): Promise<Render> {
  loading ??= Promise.all([import('react'), import('@react-email/render')]).then(
    ([react, email]): Render =>
      (component, props) => email.render(react.createElement(component as unknown as (props: Record<string, unknown>) => null, props)),
    (error: unknown) => {
      loading = undefined;
      throw new Error(`email components need react, react-dom and @react-email/render installed beside @tidings/core (${error instanceof Error ? error.message : String(error)})`);
    },
  );
  return loading;
}

/**
 * A registered component rendered to its HTML document with `@react-email/render`, its time counted
 * in the walk's render budget: none is started once the budget is spent, and a render that took
 * more than was left of it is "later", as a liquid render past its limit is (the walk goes on from
 * the step in a batch of its own, where only a render over the whole budget fails the step). A
 * React render cannot be cut short, so the budget is checked around it.
 */
export async function renderComponent(name: string, component: EmailComponent, props: Record<string, unknown>, budget: RenderBudget | undefined): Promise<string> {
  const render = await renderer();
  const left = budget ? RENDER_BUDGET_MS - budget.spentMs : Number.POSITIVE_INFINITY;
  if (left <= 0) throw new RenderBudgetSpent('walk');
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  let html: string;
  try {
    html = await render(component, props);
  } catch (error) {
    throw new Error(`the email component "${name}" failed to render: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    const spent = performance.now() - started;
    if (budget) {
      budget.spentMs += spent;
      if (budget.meter) budget.meter.spentMs += spent;
    }
  }
  const took = performance.now() - started;
  if (took > left) throw new RenderBudgetSpent(starved(cpuBefore, took) ? 'busy' : 'walk');
  return html;
}
