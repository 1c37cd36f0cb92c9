import type { EmailBlock, JsonObject, MessageCta, StepTemplate } from '../schemas/index.js';
import { renderTemplate, type RenderBudget } from './render.js';

/** A step's template with every text rendered. */
export interface RenderedContent {
  readonly subject?: string;
  readonly title?: string;
  readonly content: string | EmailBlock[];
  readonly avatar?: string;
  readonly cta: MessageCta;
  /** The step's `data`, every text in it rendered. */
  readonly data?: JsonObject;
  /** An email step's email as it is sent (see `composeEmail`). */
  readonly email?: RenderedEmail;
}

/** An email as it is sent: the layout around the body, and what the brand adds to the sending. */
export interface RenderedEmail {
  readonly html: string;
  readonly text: string;
  readonly preheader?: string;
  /** The layout used; null for none. */
  readonly layoutId: string | null;
  /** The sender name the step or the brand gives (a trigger's overrides still win). */
  readonly senderName?: string;
  /** Reply-To of the step, else of the brand (a trigger's overrides still win). */
  readonly replyTo?: string;
  /** The step's Cc and Bcc (a trigger's overrides add theirs). */
  readonly cc?: readonly string[];
  readonly bcc?: readonly string[];
  /** The step's custom headers (a trigger's `overrides.email.headers` win a clash). */
  readonly customHeaders?: Readonly<Record<string, string>>;
  /** Headers the email carries: List-Unsubscribe and List-Unsubscribe-Post (RFC 8058). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** A JSON value with every string in it rendered. */
function renderValue(value: unknown, r: (text: string) => string): unknown {
  if (typeof value === 'string') return r(value);
  if (Array.isArray(value)) return value.map((item) => renderValue(item, r));
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, renderValue(inner, r)]));
  return value;
}

/** Renders every text of a step template against the variables (subscriber, payload, step, …), within the call's budget. */
export function renderStep(template: StepTemplate, variables: Record<string, unknown>, budget?: RenderBudget): RenderedContent {
  const r = (text: string) => renderTemplate(text, variables, { budget });
  const body = (text: string) => renderTemplate(text, variables, { html: template.type === 'email', budget });
  const content =
    typeof template.content === 'string' || template.content === undefined
      ? body(template.content ?? '')
      : template.content.map((block) => ({
          ...block,
          content: body(block.content),
          ...(block.url !== undefined && { url: r(block.url) }),
        }));
  const cta: MessageCta = template.cta
    ? {
        ...template.cta,
        ...(template.cta.data && { data: { ...template.cta.data, ...(template.cta.data.url !== undefined && { url: r(template.cta.data.url) }) } }),
        ...(template.cta.action && {
          action: {
            status: 'pending' as const,
            ...template.cta.action,
            ...(template.cta.action.buttons && { buttons: template.cta.action.buttons.map((b) => (b.url === undefined ? b : { ...b, url: r(b.url) })) }),
          },
        }),
      }
    : {};
  return {
    content,
    cta,
    ...(template.subject !== undefined && { subject: r(template.subject) }),
    ...(template.title !== undefined && { title: r(template.title) }),
    ...(template.avatar !== undefined && { avatar: r(template.avatar) }),
    ...(template.data !== undefined && { data: renderValue(template.data, r) as JsonObject }),
  };
}
