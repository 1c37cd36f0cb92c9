import fc from 'fast-check';
import { Liquid } from 'liquidjs';
import { describe, expect, it } from 'vitest';
import { renderTemplate } from '../src/internal.js';

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
});
