import fc from 'fast-check';
import { expect, it } from 'vitest';
import { byteOrder } from '../src/records/record-match.js';

// Characters from every range where UTF-16 order and UTF-8 byte order could part: ASCII, two- and
// three-byte characters, the last units below and above the surrogates, and characters past U+FFFF.
const unit = fc.constantFrom('', 'a', 'Z', '~', '\u00e9', '\u07ff', '\u0800', '\ud7ff', '\ue000', '\uffef', '\uffff', '\u{10000}', '\u{1f600}', '\u{10ffff}');

it('byteOrder orders text as its UTF-8 bytes compare (the SQL backends\u2019 byte order)', () => {
  fc.assert(
    fc.property(fc.string({ unit }), fc.string({ unit }), (a, b) => {
      expect(Math.sign(byteOrder(a, b))).toBe(Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b))));
    }),
    { numRuns: 5_000 },
  );
});
