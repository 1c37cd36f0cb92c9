import { describe, expect, it } from 'vitest';
import { composeEmail } from '../src/email/compose-email.js';
import { BASIC } from '../src/email/email-look.js';
import { textPart } from '../src/email/text-part.js';

describe("an email's text part", () => {
  it('reads layout tables as blocks of text, one cell after another, and sets out a data table in columns', () => {
    const layout = '<table><tr><td>Acme</td><td>Support</td></tr><tr><td><p>Your order shipped.</p></td></tr></table>';
    expect(textPart(layout)).toBe('Acme\nSupport\n\nYour order shipped.');
    const data = '<table class="data-table"><tr><th>Item</th><th>Price</th></tr><tr><td>Tea</td><td>4.00</td></tr></table>';
    expect(textPart(data)).toMatch(/^Item +Price\nTea +4\.00$/);
    expect(textPart(data.replace('class="data-table"', 'data-table'))).toMatch(/^Item +Price\nTea +4\.00$/);
  });

  it('converts the body of a document (its head, styles and conditional comments never reach the text), and a fragment whole', () => {
    const head = '<head><title>Order</title><style>body { color: red } p { margin: 0 }</style><!--[if mso]><xml>Outlook</xml><![endif]--></head>';
    expect(textPart(`<!doctype html><html>${head}<BODY class="x"><p>Hello Ada</p></BODY></html>`)).toBe('Hello Ada');
    expect(textPart('<p>Hello <b>Ada</b></p><p>Bye</p>')).toBe('Hello Ada\n\nBye');
  });

  it('is the same for the same email however often it is made (a preview is what is sent), and leaves out the head and the preheader', () => {
    const make = () => composeEmail({ body: '<p>Hello Ada</p><ul><li>one</li></ul>', subject: 'Hi', preheader: 'Read me first', layout: BASIC, variables: { brand: { name: 'Acme', footer: 'Acme Inc.' } }, locale: 'en' });
    const first = make();
    expect(make()).toEqual(first);
    expect(first.text).toBe('Hello Ada\n\n * one\n\nAcme Inc.');
  });
});
