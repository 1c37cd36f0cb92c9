import type { StepTemplate, Workflow } from '../schemas/index.js';
import type { RenderedContent, RenderedEmail } from '../templates/render-step.js';
import { renderTemplate, type RenderBudget } from '../templates/render.js';
import { chooseLayout, type EmailLook } from './email-look.js';
import { composeEmail } from './compose-email.js';
import { unsubscribeScope } from '../preferences/categories.js';
import { renderEmailFields } from './email-fields.js';

/** A layout named by an email step that is not stored: the step fails with this reason. */
export class MissingLayout extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'MissingLayout';
  }
}

// A body that is a whole document (React Email's output, a hand-written page) already has its layout.
const WHOLE_DOCUMENT = /^\s*(<!doctype\s|<html[\s>])/i;

export interface EmailStepInput {
  readonly rendered: RenderedContent;
  readonly template: Pick<StepTemplate, 'layoutId' | 'preheader' | 'senderName' | 'slots' | 'replyTo' | 'cc' | 'bcc' | 'headers'>;
  readonly workflow: Pick<Workflow, 'layoutId' | 'critical' | 'unsubscribe' | 'category'>;
  readonly look: EmailLook | undefined;
  /** The step's variables (the brand among them). */
  readonly variables: Record<string, unknown>;
  readonly locale: string | null | undefined;
  readonly budget?: RenderBudget | undefined;
}

/**
 * An email step's rendered content with the email as it is sent: its layout chosen, its preheader
 * rendered, the step's (or else the brand's) sender name and Reply-To, the step's Cc, Bcc and headers. Throws MissingLayout for a layout named and not
 * stored, and what rendering throws (RenderBudgetSpent: the walk goes on later).
 */
export function withEmail(input: EmailStepInput): RenderedContent {
  const { rendered, template, look, variables } = input;
  const whole = typeof rendered.content === 'string' && WHOLE_DOCUMENT.test(rendered.content);
  const choice = whole ? ({ ok: true, layout: null } as const) : chooseLayout(look, template, input.workflow);
  if (!choice.ok) throw new MissingLayout(choice.reason);
  const preheader = template.preheader ? renderTemplate(template.preheader, variables, { budget: input.budget }) : undefined;
  const slots = choice.layout && template.slots ? renderSlots(template.slots, variables, input.budget) : undefined;
  const composed = composeEmail({ body: rendered.content, subject: rendered.subject, preheader, layout: choice.layout, slots, variables, locale: input.locale, budget: input.budget });
  const brand = look?.brand;
  const senderName = template.senderName ? renderTemplate(template.senderName, variables, { budget: input.budget }) : brand?.fromName;
  const headers = oneClick(input);
  const fields = renderEmailFields(input.template, variables, input.budget);
  const replyTo = fields.replyTo ?? brand?.replyTo;
  const email: RenderedEmail = {
    ...composed,
    layoutId: choice.layout?.identifier ?? null,
    ...(preheader && { preheader }),
    ...(senderName && { senderName }),
    ...(replyTo && { replyTo }),
    ...(fields.cc && { cc: fields.cc }),
    ...(fields.bcc && { bcc: fields.bcc }),
    ...(fields.headers && { customHeaders: fields.headers }),
    ...(headers && { headers }),
  };
  return { ...rendered, email };
}

/** The step's texts for its layout's named slots, rendered as its body is (every output HTML-escaped). */
const renderSlots = (slots: Readonly<Record<string, string>>, variables: Record<string, unknown>, budget: RenderBudget | undefined) =>
  Object.fromEntries(Object.entries(slots).map(([name, text]) => [name, renderTemplate(text, variables, { html: true, budget })]));

/**
 * RFC 8058 one-click unsubscribe headers: the signed unsubscribe URL (and the mailto form when one is
 * set), unless the workflow's unsubscribe scope is `none` (critical, transactional, or set so).
 */
function oneClick(input: EmailStepInput): Record<string, string> | undefined {
  const links = input.look?.links;
  if (!links || unsubscribeScope(input.workflow, input.look?.categories) === 'none') return undefined;
  const url = input.variables['unsubscribeUrl'];
  if (typeof url !== 'string') return undefined;
  return { 'List-Unsubscribe': `<${url}>${links.mailto ? `, <mailto:${links.mailto}?subject=unsubscribe>` : ''}`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' };
}
