import { describe, expect, it } from 'vitest';
import { composeEmail } from '../src/email/compose-email.js';
import { stepTemplateSchema } from '../src/schemas/index.js';
import { parseInput } from '../src/validation.js';

const LAYOUT = {
  identifier: 'slotted',
  type: 'html' as const,
  html: '<html><body><main>{{ content }}</main><aside>{{ aside }}</aside><footer>{% if footer %}{{ footer }}{% else %}<p>Default footer for {{ brand.name }}</p>{% endif %}</footer></body></html>',
};

const compose = (slots?: Record<string, string>) =>
  composeEmail({ body: '<p>Body</p>', subject: 'S', layout: LAYOUT, slots, variables: { brand: { name: 'Acme & Co' } }, locale: 'en' });

describe("a layout's named slots", () => {
  it('a filled slot goes in its place as HTML, unescaped like the body; the text part has it', () => {
    const { html, text } = compose({ footer: '<p>Sent to <b>you</b></p>', aside: '<em>Tip</em>' });
    expect(html).toContain('<main><p>Body</p></main><aside><em>Tip</em></aside><footer><p>Sent to <b>you</b></p></footer>');
    expect(text).toContain('Sent to you');
  });

  it("an unfilled slot is no variable: `{{ aside }}` renders nothing and the layout's `{% if footer %}` fallback shows; a slot that rendered empty counts as unfilled", () => {
    for (const slots of [undefined, {}, { footer: '  ', aside: '' }] as (Record<string, string> | undefined)[]) {
      const { html } = compose(slots);
      expect(html).toContain('<aside></aside><footer><p>Default footer for Acme &amp; Co</p></footer>');
    }
  });

  it('with no layout, slots go nowhere', () => {
    const { html } = composeEmail({ body: '<p>Body</p>', layout: null, slots: { footer: '<p>F</p>' }, variables: {}, locale: 'en' });
    expect(html).toBe('<!doctype html><html lang="en" dir="ltr"><head><meta charset="utf-8"></head><body><p>Body</p></body></html>');
  });

  it("slot names are checked by the step's schema, naming the field: letters, digits and _, and none of the layout's own variables", () => {
    const check = (slots: Record<string, string>) => {
      try {
        parseInput(stepTemplateSchema, { type: 'email', content: 'x', slots }, 'template');
        return null;
      } catch (error) {
        return (error as { issues: { path: string; message: string }[] }).issues;
      }
    };
    expect(check({ footer: 'x', side_bar2: 'y' })).toBeNull();
    expect(check({ 'foot er': 'x' })).toEqual([{ path: 'slots.foot er', message: expect.stringContaining('a slot name must be letters, digits and "_"') }]);
    expect(check({ content: 'x' })).toEqual([{ path: 'slots.content', message: expect.stringContaining("must not be one of the layout's own variables") }]);
    expect(check({ brand: 'x' })).toEqual([{ path: 'slots.brand', message: expect.stringContaining("must not be one of the layout's own variables") }]);
  });
});
