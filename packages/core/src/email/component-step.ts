import type { StepTemplate } from '../schemas/index.js';
import type { RenderBudget } from '../templates/render.js';
import { componentProps } from './component-props.js';
import { unknownComponent } from './email-components.js';
import type { EmailLook } from './email-look.js';
import { renderComponent } from './render-component.js';

/**
 * The body of an email step that names a component: the component rendered with the step's props, a
 * whole HTML document (sent as it is, without a layout). A name not registered fails the step.
 */
export async function componentBody(name: string, template: Pick<StepTemplate, 'props'>, variables: Record<string, unknown>, look: EmailLook | undefined, budget: RenderBudget | undefined): Promise<string> {
  const missing = unknownComponent(name, look?.components);
  if (missing) throw new Error(missing);
  return renderComponent(name, look!.components![name]!, componentProps(template.props, variables, budget), budget);
}
