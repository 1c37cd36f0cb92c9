import { describe, expect, it } from 'vitest';
import { htmlToText, renderEmailBody } from '../src/internal.js';

describe('email bodies', () => {
  it('blocks become aligned paragraphs and button links, with a text part', () => {
    const { html, text } = renderEmailBody([
      { type: 'text', content: 'Hello <b>Ada</b>', styles: { textAlign: 'center' } },
      { type: 'button', content: 'Open', url: 'https://x.test/?a=1&b=2' },
    ]);
    expect(html).toContain('<p style="text-align:center">Hello <b>Ada</b></p>');
    expect(html).toContain('href="https://x.test/?a=1&amp;b=2"');
    expect(text).toBe('Hello Ada\n\nOpen (https://x.test/?a=1&b=2)');
  });

  it('a string body is HTML as written, and its text part drops the tags', () => {
    expect(renderEmailBody('<h1>Hi</h1><p>there &amp; you</p>')).toEqual({ html: '<h1>Hi</h1><p>there &amp; you</p>', text: 'Hi\n\nthere & you' });
    expect(htmlToText('a<br/>b')).toBe('a\nb');
  });

  it('the text part keeps link addresses and ends a line at every block', () => {
    expect(htmlToText('<p>Ada replied: thanks!</p><a href="https://app.test/c/1">View the comment</a>')).toBe('Ada replied: thanks!\n\nView the comment (https://app.test/c/1)');
    expect(htmlToText('<div>one</div><div>two</div><ul><li>a</li><li>b</li></ul>')).toBe('one\ntwo\n * a\n * b');
    expect(htmlToText('<a href="https://app.test">https://app.test</a>')).toBe('https://app.test');
  });
});
