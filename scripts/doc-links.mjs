// Checks the links of README.md and docs/*.md: every relative link names a file or folder that exists,
// and every #anchor a heading of the page it points into (GitHub's heading ids). Links to other sites
// are not followed. Run alone with `node scripts/doc-links.mjs`; the consumer test runs it first.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { docFiles } from './doc-blocks.mjs';

/** GitHub's id for a heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function headingIds(markdown) {
  const ids = new Set();
  const seen = new Map();
  for (const line of withoutFences(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = heading[1]
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    ids.add(count === 0 ? base : `${base}-${count}`);
  }
  return ids;
}

/** The lines of `markdown`, those of fenced code blocks (fences included) blanked, so indices stay line numbers. */
function withoutFences(markdown) {
  let fence = null;
  return markdown.split('\n').map((line) => {
    const marks = /^(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === null && marks) fence = marks;
    else if (fence !== null && marks && marks[0] === fence[0] && marks.length >= fence.length && line.trim() === marks) fence = null;
    else if (fence === null) return line;
    return '';
  });
}

/** Every broken link of the documentation, as `file:line: why`; empty when all hold. */
export function brokenDocLinks(root) {
  const problems = [];
  const idsOf = new Map();
  const ids = (file) => {
    if (!idsOf.has(file)) idsOf.set(file, headingIds(readFileSync(join(root, file), 'utf8')));
    return idsOf.get(file);
  };
  for (const file of docFiles(root)) {
    const lines = withoutFences(readFileSync(join(root, file), 'utf8'));
    lines.forEach((line, index) => {
      // Inline code is not a link.
      const text = line.replace(/`[^`]*`/g, '');
      for (const match of text.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        const target = match[1];
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, …
        const [path, anchor] = target.split('#');
        const linked = path === '' ? file : normalize(join(dirname(file), decodeURIComponent(path)));
        const where = `${file}:${index + 1}: ${target}`;
        if (linked.startsWith('..')) problems.push(`${where}: points outside the repository`);
        else if (!existsSync(join(root, linked))) problems.push(`${where}: ${linked} does not exist`);
        else if (anchor !== undefined && linked.endsWith('.md') && !ids(linked).has(anchor)) problems.push(`${where}: ${linked} has no heading #${anchor}`);
      }
    });
  }
  return problems;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const problems = brokenDocLinks(root);
  for (const problem of problems) console.error(problem);
  console.log(problems.length === 0 ? `links of ${docFiles(root).length} pages hold` : `${problems.length} broken links`);
  process.exitCode = problems.length === 0 ? 0 : 1;
}
