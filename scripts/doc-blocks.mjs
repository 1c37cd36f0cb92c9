// The code blocks of the documentation that the consumer test type-checks and runs: README.md and
// every docs/*.md. A block is a ```ts (or ```tsx) fence right after a marker line:
//
//   <!-- consumer: name -->                    type-checked and run
//   <!-- consumer: name (typecheck only) -->   type-checked, not run (it needs a server, a database URL, a browser …)
//   <!-- consumer-output: name -->             before a plain ``` fence: what the block named prints, exactly
//   <!-- unchecked: why -->                    a ts fence the test leaves alone, saying why
//
// Every ts/tsx fence must carry one of the markers, so no snippet a user copies goes unchecked by
// accident. Each block is a whole program, a file of its own: it imports and defines everything it
// uses (the workflow it triggers included), so a reader can copy it and run it. Block names are
// unique across all the files.
import { readFileSync, readdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';

const OPTIONS = new Set(['typecheck only']);

/** README.md, then docs/*.md in name order, as paths relative to `root`. */
export function docFiles(root) {
  const docs = readdirSync(join(root, 'docs'), { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.md'))
    .map((entry) => join('docs', entry.name))
    .sort();
  return ['README.md', ...docs];
}

/** The packages a block imports by bare name (`@novu/api`, `react`), leaving out Node's own modules. */
export function importedPackages(code) {
  const names = new Set();
  for (const match of code.matchAll(/^\s*import\s[^'"]*?from\s+['"]([^'"]+)['"]|^\s*import\s+['"]([^'"]+)['"]/gm)) {
    const specifier = match[1] ?? match[2];
    if (specifier.startsWith('.') || specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0])) continue;
    const parts = specifier.split('/');
    names.add(specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]);
  }
  return names;
}

/**
 * Every consumer block of the documentation: name → { file, where (`docs/x.md:12`), lang (`ts` or
 * `tsx`), code, output (null when the docs show none), run }. Throws an Error naming the file and line
 * of a malformed marker, a duplicate name, output without its block, or a ts fence without a marker.
 * Fences are read where they start a line (not indented); other fenced blocks are skipped whole.
 */
export function docBlocks(root) {
  const blocks = new Map();
  const outputs = [];
  for (const file of docFiles(root)) {
    const text = readFileSync(join(root, file), 'utf8');
    const lines = text.split('\n');
    const where = (index) => `${file}:${index + 1}`;
    /** The index of the line closing the fence opened at `open` (same character, at least as long), or -1. */
    const closing = (open) => {
      const [, marks] = /^(`{3,}|~{3,})/.exec(lines[open]);
      const close = new RegExp(`^${marks[0] === '`' ? '`' : '~'}{${marks.length},}\\s*$`);
      for (let j = open + 1; j < lines.length; j++) if (close.test(lines[j])) return j;
      return -1;
    };
    for (let i = 0; i < lines.length; i++) {
      const fence = /^```(ts|tsx|typescript)\s*$/.exec(lines[i]);
      const output = /^<!-- consumer-output: ([\w-]+) -->$/.exec(lines[i]);
      if (!fence && !output && /^(`{3,}|~{3,})/.test(lines[i])) {
        // Any other fenced block (sh, a plain output, a ````md example of these markers) is skipped whole.
        const end = closing(i);
        if (end < 0) throw new Error(`${where(i)}: a fenced block that is never closed`);
        i = end;
        continue;
      }
      if (fence) {
        const marker = lines[i - 1] ?? '';
        if (/^<!-- unchecked: .+ -->$/.test(marker)) {
          const end = closing(i);
          if (end < 0) throw new Error(`${where(i)}: an unchecked block that is never closed`);
          i = end;
          continue;
        }
        const consumer = /^<!-- consumer: ([\w-]+)(?: \(([^)]*)\))? -->$/.exec(marker);
        if (!consumer) {
          throw new Error(`${where(i)}: a ${fence[1]} block without a marker on the line before it: \`<!-- consumer: name -->\` to type-check and run it (see scripts/doc-blocks.mjs), or \`<!-- unchecked: why -->\``);
        }
        const [, name, optionText = ''] = consumer;
        if (blocks.has(name)) throw new Error(`${where(i - 1)}: a second consumer block named "${name}" (the first is at ${blocks.get(name).where})`);
        const options = optionText.split(',').map((o) => o.trim()).filter(Boolean);
        for (const option of options) {
          if (option.startsWith('prelude:')) throw new Error(`${where(i - 1)}: block "${name}" asks for a prelude: a block shows all the code it needs (imports, the engine, the workflow it triggers)`);
          if (!OPTIONS.has(option)) throw new Error(`${where(i - 1)}: block "${name}" has an unknown option "${option}" (known: ${[...OPTIONS].join(', ')})`);
        }
        const end = closing(i);
        if (end < 0) throw new Error(`${where(i)}: the block "${name}" is never closed`);
        const code = lines.slice(i + 1, end).join('\n') + '\n';
        blocks.set(name, { file, where: where(i - 1), lang: fence[1] === 'tsx' ? 'tsx' : 'ts', code, output: null, run: !options.includes('typecheck only') });
        i = end;
        continue;
      }
      if (output) {
        if (lines[i + 1] !== '```') throw new Error(`${where(i)}: consumer-output "${output[1]}" must be followed by a plain \`\`\` fence`);
        const end = closing(i + 1);
        if (end < 0) throw new Error(`${where(i + 1)}: the output of "${output[1]}" is never closed`);
        outputs.push({ name: output[1], where: where(i), text: lines.slice(i + 2, end).join('\n') + '\n' });
        i = end;
      }
    }
  }
  for (const { name, where, text } of outputs) {
    const block = blocks.get(name);
    if (!block) throw new Error(`${where}: output for "${name}", but no consumer block of that name`);
    if (block.output !== null) throw new Error(`${where}: a second output for "${name}"`);
    if (!block.run) throw new Error(`${where}: output for "${name}", which is typecheck only`);
    block.output = text;
  }
  if (blocks.size === 0) throw new Error('the documentation has no consumer blocks');
  return blocks;
}
