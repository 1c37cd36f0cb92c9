#!/usr/bin/env node
// Bundles the activity page (src/activity/page, Preact) with esbuild into activity/activity.js and
// activity/activity.css, which ship in the package and are committed: the server reads them from
// there, from the sources as from the built package, and never builds at run time. Run it after
// changing the page (`pnpm --filter @tidings/http build:activity`); a test checks they are current.
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = new URL('../', import.meta.url);
export const ACTIVITY_OUT = fileURLToPath(new URL('activity/', root));

/** The page's bundle in memory: `{ 'activity.js': text, 'activity.css': text }`. */
export async function bundleActivity() {
  const result = await build({
    entryPoints: { activity: fileURLToPath(new URL('src/activity/page/main.tsx', root)) },
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none',
    banner: { js: '/*! Tidings activity page. Bundles Preact (MIT License, https://preactjs.com). */' },
    outdir: 'out',
    write: false,
    logLevel: 'silent',
  });
  return Object.fromEntries(result.outputFiles.map((file) => [file.path.split(/[\\/]/).pop(), file.text]));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const files = await bundleActivity();
  mkdirSync(ACTIVITY_OUT, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(`${ACTIVITY_OUT}${name}`, text);
  console.log(`activity page: ${Object.entries(files).map(([name, text]) => `${name} ${(Buffer.byteLength(text) / 1024).toFixed(1)} kB`).join(', ')}`);
}
