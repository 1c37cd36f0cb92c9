import { z } from 'zod';
import type { StepTemplate } from '../schemas/index.js';
import { renderTemplate, type RenderBudget } from '../templates/render.js';

const isAddress = (text: string) => z.email().safeParse(text).success;

/** What an email step adds to its sending: its Reply-To, Cc, Bcc and custom headers, rendered. */
export interface RenderedEmailFields {
  readonly replyTo?: string;
  readonly cc?: readonly string[];
  readonly bcc?: readonly string[];
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * Renders an email step's `replyTo`, `cc`, `bcc` and `headers` against its variables. Throws (the
 * step fails, naming the member) when an address renders to something that is not one, or a header
 * value to more than one line: neither may reach a mail server as written.
 */
export function renderEmailFields(template: Pick<StepTemplate, 'replyTo' | 'cc' | 'bcc' | 'headers'>, variables: Record<string, unknown>, budget: RenderBudget | undefined): RenderedEmailFields {
  const render = (text: string) => renderTemplate(text, variables, { budget }).trim();
  const address = (member: string, text: string) => {
    const out = render(text);
    if (!isAddress(out)) throw new Error(`${member} "${text}" rendered "${out}", which is not an email address`);
    return out;
  };
  const addresses = (member: string, value: string | readonly string[] | undefined) =>
    value === undefined ? undefined : (typeof value === 'string' ? [value] : value).map((text, i) => address(typeof value === 'string' ? member : `${member}[${i}]`, text));
  const cc = addresses('cc', template.cc);
  const bcc = addresses('bcc', template.bcc);
  const headers = template.headers
    ? Object.fromEntries(
        Object.entries(template.headers).map(([name, text]) => {
          const out = render(text);
          if (/[\r\n]/.test(out)) throw new Error(`headers.${name} rendered more than one line`);
          return [name, out];
        }),
      )
    : undefined;
  return {
    ...(template.replyTo !== undefined && { replyTo: address('replyTo', template.replyTo) }),
    ...(cc && cc.length > 0 && { cc }),
    ...(bcc && bcc.length > 0 && { bcc }),
    ...(headers && Object.keys(headers).length > 0 && { headers }),
  };
}
