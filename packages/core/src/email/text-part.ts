import { compile } from 'html-to-text';

// Compiled once: html-to-text's per-call option handling is most of its cost on small emails.
const toText = compile({
  wordwrap: 78,
  selectors: [
    { selector: 'a', options: { linkBrackets: ['(', ')'], hideLinkHrefIfSameAsText: true } },
    { selector: 'img', format: 'skip' },
    { selector: 'div[data-tidings-preheader]', format: 'skip' },
    { selector: 'h1', options: { uppercase: false } },
    { selector: 'h2', options: { uppercase: false } },
    { selector: 'h3', options: { uppercase: false } },
    { selector: 'h4', options: { uppercase: false } },
    { selector: 'h5', options: { uppercase: false } },
    { selector: 'h6', options: { uppercase: false } },
    // Emails lay out with tables: a table's cells are blocks of text, unless it says it holds data
    // (`<table class="data-table">` or `data-table`), which is set out in columns.
    { selector: 'table', format: 'block' },
    { selector: 'tr', format: 'block', options: { leadingLineBreaks: 1, trailingLineBreaks: 1 } },
    { selector: 'td', format: 'block', options: { leadingLineBreaks: 1, trailingLineBreaks: 1 } },
    { selector: 'th', format: 'block', options: { leadingLineBreaks: 1, trailingLineBreaks: 1 } },
    { selector: 'table.data-table', format: 'dataTable', options: { uppercaseHeaderCells: false } },
    { selector: 'table[data-table]', format: 'dataTable', options: { uppercaseHeaderCells: false } },
  ],
});

/**
 * The plain-text part of an email: block elements (and layout tables' cells) end lines, a data
 * table is set out in columns, a link keeps its address as `text (url)`, images and the hidden
 * preheader are left out.
 */
export const textPart = (html: string): string => toText(fromBody(html)).trim();

const BODY_OPEN = /<body\b/i;

/**
 * The document from its `<body>` on: html-to-text converts the body alone (its default base element)
 * but parses all it is given, and a laid-out email's head (MJML's styles and conditional comments)
 * was about half of that parse.
 */
function fromBody(html: string): string {
  const at = html.search(BODY_OPEN);
  return at > 0 ? html.slice(at) : html;
}
