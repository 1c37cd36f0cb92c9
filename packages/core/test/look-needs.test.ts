import { describe, expect, it } from 'vitest';
import { lookNeeds } from '../src/engine/email/look-needs.js';
import type { Workflow } from '../src/schemas/index.js';

const workflow = (templates: Record<string, unknown>[], creator = 'user') =>
  ({ _creatorId: creator, steps: templates.map((template) => ({ template, variants: [] })) }) as unknown as Workflow;

describe('lookNeeds: a batch reads only the look its messages can use', () => {
  it('an in-app message naming neither brand, t, locale nor a partial needs none of them', () => {
    expect(lookNeeds([workflow([{ type: 'in_app', content: "Hi {{ subscriber.firstName }}, don't miss {{ payload.n }}" }])], true)).toEqual({ brands: false, catalogs: false, layouts: false });
  });
  it('what a template names: the brand, t (filter or t.key), locale, a partial', () => {
    expect(lookNeeds([workflow([{ type: 'in_app', content: 'From {{ brand.name }}' }])], false)).toMatchObject({ brands: true, catalogs: false });
    expect(lookNeeds([workflow([{ type: 'in_app', content: "{{ 'hello' | t }}" }])], false).catalogs).toBe(true);
    expect(lookNeeds([workflow([{ type: 'sms', content: '{{ t.greeting }}' }])], false).catalogs).toBe(true);
    expect(lookNeeds([workflow([{ type: 'push', content: 'in {{ locale }}' }])], false).catalogs).toBe(true);
    expect(lookNeeds([workflow([{ type: 'in_app', content: "{% render 'sig' %}" }])], false).layouts).toBe(true);
  });
  it('an email step needs everything (its layout sees brand and t), layouts only with an email integration; a code workflow needs catalogs', () => {
    expect(lookNeeds([workflow([{ type: 'in_app', content: 'x' }]), workflow([{ type: 'email', subject: 's', content: 'c' }])], true)).toEqual({ brands: true, catalogs: true, layouts: true });
    expect(lookNeeds([workflow([{ type: 'email', subject: 's', content: 'c' }])], false).layouts).toBe(false);
    expect(lookNeeds([workflow([{ type: 'in_app' }], 'code')], false)).toEqual({ brands: false, catalogs: true, layouts: false });
  });
});
