// @ts-check
// `node test-support/bundle-ts.mjs <script.ts> <directory>`: bundles a TypeScript script for spawnTs
// (test-support/spawn-ts.ts), so its child starts from JavaScript instead of transpiling hundreds of
// modules through tsx on every start, and prints the bundle's entry file. Plain JavaScript, so that it
// runs without tsx. Exits 1 with esbuild's messages when the script cannot be bundled; spawnTs then
// runs it through tsx as before.
//
// Each bundle is a new subdirectory of <directory>, never changed nor removed while the test run lasts
// (a child started from it may still load a chunk of it), with `inputs.json`: when the build started
// and the source files it read, so that spawnTs uses it only while none of them has changed since
// (freshBundle in spawn-ts.ts). `<directory>/current` names the newest one.
//
// What the bundle keeps as a tsx run has it:
// - workspace packages (`@tidings/*`) resolve to their TypeScript sources (the `@tidings/source`
//   condition) and are bundled; every other package stays outside, imported from the very file Node
//   would load for the importing source file (pnpm keeps each package's own dependencies apart, so
//   the bundle, elsewhere on disk, could not find them by name);
// - a file read relative to its module (`new URL('./x', import.meta.url)`, `import.meta.dirname` /
//   `filename`) is read from beside the source, not the bundle; `import.meta.url` elsewhere in a
//   bundled module is its source's; in the script itself it stays the bundle's own, which is what
//   "is this the main module" checks against process.argv[1] need (the bundle keeps the script's base
//   name, `.js` for `.ts`);
// - `sideEffects: false` and pure annotations are ignored (a module is never dropped because its
//   exports are unused: Node would run it);
// - dynamic imports stay lazy (one chunk each), so a backend's driver loads only when it is used;
// - source maps, so a stack trace names the TypeScript files (spawnTs runs the child with
//   --enable-source-maps, as tsx enables them).
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const [script, directory] = process.argv.slice(2);
if (!script || !directory) {
  console.error('usage: node test-support/bundle-ts.mjs <script.ts> <directory>');
  process.exit(2);
}

const SKIP = Symbol('resolving as esbuild would');
const LOADERS = /** @type {const} */ ({ '.ts': 'ts', '.mts': 'ts', '.cts': 'ts', '.tsx': 'tsx', '.js': 'js', '.mjs': 'js', '.jsx': 'jsx' });

/** @type {import('esbuild').Plugin} */
const plugin = {
  name: 'spawn-ts',
  setup(bundler) {
    // Bare imports: `@tidings/*` is bundled (from source); any other package stays outside, by the
    // URL of the file esbuild resolves it to (as Node would: conditions node, import, default).
    bundler.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === SKIP || args.path.startsWith('@tidings/') || isBuiltin(args.path)) return undefined;
      const found = await bundler.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: SKIP });
      // Not installed: left as it is, to fail (or be caught) at run time as it would under tsx.
      if (found.errors.length > 0 || !found.path) return { path: args.path, external: true };
      const require = args.kind === 'require-call' || args.kind === 'require-resolve';
      return { path: require ? found.path : pathToFileURL(found.path).href, external: true };
    });

    // Module-relative locations point at the sources, not at the bundle.
    bundler.onLoad({ filter: /\.(?:[cm]?[jt]s|[jt]sx)$/ }, (args) => {
      if (args.path.includes('/node_modules/')) return undefined;
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes('import.meta')) return undefined;
      const url = JSON.stringify(pathToFileURL(args.path).href);
      let contents = source
        .replace(/new URL\(([^()]*?),\s*import\.meta\.url\s*\)/g, `new URL($1, ${url})`)
        .replace(/import\.meta\.dirname\b/g, JSON.stringify(dirname(args.path)))
        .replace(/import\.meta\.filename\b/g, JSON.stringify(args.path));
      if (args.path !== script) contents = contents.replace(/import\.meta\.url\b/g, url);
      if (/import\.meta\.resolve\b/.test(contents)) return { errors: [{ text: `${args.path} uses import.meta.resolve, which would resolve from the bundle: run it through tsx` }] };
      const loader = LOADERS[/** @type {keyof typeof LOADERS} */ (extname(args.path))];
      return { contents, loader, resolveDir: dirname(args.path) };
    });
  },
};

// Built under a temporary name, then renamed: a bundle directory is complete once it has its name.
const started = Date.now();
const version = `${started}-${process.pid}`;
const building = join(directory, `${version}.tmp`);
mkdirSync(directory, { recursive: true });
/** @type {import('esbuild').Metafile} */
let metafile;
try {
  ({ metafile } = await build({
    entryPoints: [script],
    outdir: building,
    entryNames: '[name]',
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['@tidings/source'],
    ignoreAnnotations: true,
    sourcemap: 'linked',
    sourcesContent: false,
    metafile: true,
    logLevel: 'silent',
    plugins: [plugin],
  }));
} catch (error) {
  rmSync(building, { recursive: true, force: true });
  console.error(`cannot bundle ${script}: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
// The entry is `<name>.js` (whatever the script's extension), an ES module.
writeFileSync(join(building, 'package.json'), '{ "type": "module" }\n');
const inputs = Object.keys(metafile.inputs).map((input) => resolve(input));
writeFileSync(join(building, 'inputs.json'), JSON.stringify({ started, inputs }));
renameSync(building, join(directory, version));
writeFileSync(join(directory, `current.${process.pid}.tmp`), version);
renameSync(join(directory, `current.${process.pid}.tmp`), join(directory, 'current'));
console.log(join(directory, version, `${basename(script, extname(script))}.js`));
