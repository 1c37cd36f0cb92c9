import fc from 'fast-check';
import { Liquid } from 'liquidjs';
import { describe, expect, it } from 'vitest';
import { renderTemplate } from '../src/internal.js';
import { BASIC_LAYOUT } from '../src/email/basic-layout.js';
import { renderBudget } from '../src/templates/render.js';

// The fast path for plain `{{ path }}` templates must render exactly what liquid renders.
const liquid = new Liquid({ strictFilters: true, ownPropertyOnly: true });
const html = new Liquid({ strictFilters: true, ownPropertyOnly: true, outputEscape: 'escape' });

describe('template rendering', () => {
  it('plain output templates render as liquid does, escaped or not', () => {
    const key = fc.constantFrom('a', 'b', 'name', 'n');
    const value = fc.oneof(fc.string(), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null), fc.array(fc.integer(), { maxLength: 3 }));
    const text = fc.stringMatching(/^[^{}]{0,8}$/);
    const path = fc.oneof(key.map((k) => `payload.${k}`), fc.constant('payload.list[1]'), fc.constant('missing.deep'), key);
    fc.assert(
      fc.property(fc.array(fc.tuple(text, path, fc.boolean()), { maxLength: 4 }), text, fc.dictionary(key, value), fc.array(value, { maxLength: 3 }), fc.boolean(), (parts, tail, payload, list, escaped) => {
        const template = parts.map(([t, p, spaced]) => `${t}{{${spaced ? ' ' : ''}${p}${spaced ? ' ' : ''}}}`).join('') + tail;
        const variables = { payload: { ...payload, list }, ...payload };
        const expected = (escaped ? html : liquid).parseAndRenderSync(template, variables);
        expect(renderTemplate(template, variables, { html: escaped })).toBe(expected);
      }),
      { numRuns: 500 },
    );
  });

  it('templates of text, outputs with a default and nested `if` blocks (a layout) render as liquid does, escaped or not', () => {
    const key = fc.constantFrom('a', 'b', 'name', 'size', 'first');
    const value = fc.oneof(fc.string({ maxLength: 4 }), fc.constantFrom('', '<&"\'>', '0'), fc.integer({ min: -2, max: 2 }), fc.boolean(), fc.constant(null), fc.constant(undefined), fc.array(fc.integer(), { maxLength: 2 }), fc.dictionary(key, fc.string({ maxLength: 2 }), { maxKeys: 2, noNullPrototype: true }));
    const text = fc.stringMatching(/^[^{}%]{0,6}$/);
    const path = fc.oneof(key, key.map((k) => `brand.${k}`), key.map((k) => `brand.colors.${k}`), fc.constant('list[0]'), fc.constant('name.size'));
    const literal = fc.stringMatching(/^[^'"\\{}%]{0,4}$/);
    const output = fc.tuple(path, fc.option(literal, { nil: undefined }), fc.boolean(), fc.boolean()).map(([p, fallback, spaced, doubleQuoted]) => {
      const pad = spaced ? ' ' : '';
      return `{{${pad}${p}${fallback === undefined ? '' : ` | default: ${doubleQuoted ? `"${fallback}"` : `'${fallback}'`}`}${pad}}}`;
    });
    const template: fc.Arbitrary<string> = fc.letrec<{ t: string }>((tie) => ({
      t: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.array(fc.oneof(text, output), { maxLength: 4 }).map((parts) => parts.join('')),
        fc.tuple(text, path, tie('t'), tie('t')).map(([before, p, inner, after]) => `${before}{% if ${p} %}${inner}{% endif %}${after}`),
      ),
    })).t;
    const variables = fc.record({ a: value, b: value, name: value, size: value, first: value, list: fc.array(value, { maxLength: 2 }), brand: fc.oneof(fc.constant(undefined), fc.record({ a: value, name: value, size: value, colors: fc.oneof(fc.constant(undefined), fc.dictionary(key, value, { maxKeys: 3, noNullPrototype: true })) }, { requiredKeys: [] })) }, { requiredKeys: [] });
    fc.assert(
      fc.property(template, variables, fc.boolean(), (tpl, vars, escaped) => {
        const expected = (escaped ? html : liquid).parseAndRenderSync(tpl, vars);
        expect(renderTemplate(tpl, vars, { html: escaped })).toBe(expected);
      }),
      { numRuns: 1_000 },
    );
  });

  it('the built-in layout is rendered without liquid (a plan, which spends no render time), for a brand and for none', () => {
    // Its outputs and blocks are all the plan knows: a change that made it liquid's would slow every email.
    const brand = { name: 'Acme & Co', logoUrl: 'https://x.test/l.png', footer: '<Acme>', colors: { background: '#fff' } };
    for (const variables of [{ subject: 'Hi "you"', brand, content: 'BODY' }, { subject: '', content: 'BODY' }]) {
      const budget = renderBudget();
      expect(renderTemplate(BASIC_LAYOUT, variables, { html: true, budget })).toBe(html.parseAndRenderSync(BASIC_LAYOUT, variables));
      expect(budget.spentMs).toBe(0);
    }
  });
});
