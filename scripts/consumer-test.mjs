#!/usr/bin/env node
// The consumer test: Tidings as a user gets it from the registry. Builds every package, checks each
// with publint, packs it with pnpm, installs the tarballs with npm into a fresh project outside the
// workspace (no workspace links, no source condition), type-checks the code blocks of README.md and
// docs/*.md with the options of today's `tsc --init` (strict, noUncheckedIndexedAccess, …), runs them
// and compares what they print with the docs, then starts `tidings serve` from the installed bin and
// calls it. Any failure exits non-zero. How blocks are marked: scripts/doc-blocks.mjs; the links
// between the pages are checked first (scripts/doc-links.mjs).
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { docBlocks, importedPackages } from './doc-blocks.mjs';
import { brokenDocLinks } from './doc-links.mjs';
import { PACKAGES, catalogVersion } from './packages.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const keep = process.argv.includes('--keep');
const work = mkdtempSync(join(tmpdir(), 'tidings-consumer-'));
const packs = join(work, 'packs');
const app = join(work, 'app');

function step(title) {
  console.log(`\n▸ ${title}`);
}

function run(command, args, cwd, env = {}) {
  execFileSync(command, args, { cwd, stdio: 'inherit', env: { ...process.env, ...env } });
}

function fail(message) {
  console.error(`\n✗ consumer test: ${message}`);
  process.exit(1);
}

/**
 * The documentation's consumer blocks, read before anything is built so a malformed marker (or a broken
 * link between the pages) fails at once.
 */
function readDocBlocks() {
  const broken = brokenDocLinks(root);
  if (broken.length > 0) fail(`broken links in the docs:\n${broken.join('\n')}`);
  try {
    return docBlocks(root);
  } catch (error) {
    fail(error.message);
  }
}

/**
 * The compiler options of `tsc --init` in TypeScript 5.9 (what a new project starts with), plus
 * Node's types (its comment says to add them for Node) and where the files are.
 */
const TSC_INIT_OPTIONS = {
  module: 'nodenext',
  target: 'esnext',
  types: ['node'],
  sourceMap: true,
  declaration: true,
  declarationMap: true,
  noUncheckedIndexedAccess: true,
  exactOptionalPropertyTypes: true,
  strict: true,
  jsx: 'react-jsx',
  verbatimModuleSyntax: true,
  isolatedModules: true,
  noUncheckedSideEffectImports: true,
  moduleDetection: 'force',
  skipLibCheck: true,
};

/**
 * What the blocks import besides the packed @tidings packages and the drivers every app here gets:
 * each at the version of the pnpm catalog, so the docs are checked against the versions the tests pin.
 * A tsx block also needs React's types.
 */
function blockDependencies(blocks) {
  const installed = new Set([...PACKAGES.map(({ name }) => name), 'better-sqlite3', 'pg']);
  const wanted = new Set();
  for (const [name, block] of blocks) {
    for (const dependency of importedPackages(block.code)) {
      if (installed.has(dependency)) continue;
      try {
        catalogVersion(dependency);
      } catch {
        fail(`the "${name}" block (${block.where}) imports ${dependency}, which is not in the pnpm catalog (pnpm-workspace.yaml): add it there so the docs are checked against a pinned version`);
      }
      wanted.add(dependency);
    }
    if (block.lang === 'tsx') ['react', '@types/react'].forEach((dependency) => wanted.add(dependency));
    // @novu/framework loads zod-to-json-schema at run time without depending on it; Novu's docs have
    // its users install it beside it, and so does ours.
    if ([...importedPackages(block.code)].includes('@novu/framework')) wanted.add('zod-to-json-schema');
    // Email components render with React Email's renderer, an optional peer of @tidings/core that an
    // app registering components installs (with react and react-dom) without importing it.
    if (/\bemailComponents\b/.test(block.code)) ['react', 'react-dom', '@react-email/render'].forEach((dependency) => wanted.add(dependency));
  }
  return Object.fromEntries([...wanted].sort().map((dependency) => [dependency, catalogVersion(dependency)]));
}

/** Writes the blocks as files of their own under `app/blocks` and type-checks them (see TSC_INIT_OPTIONS). */
function typecheckBlocks(blocks) {
  const dir = join(app, 'blocks');
  mkdirSync(dir, { recursive: true });
  for (const [name, block] of blocks) {
    writeFileSync(join(dir, `${name}.${block.lang}`), block.code);
    console.log(`blocks/${name}.${block.lang} ← ${block.where}`);
  }
  const tsconfig = { compilerOptions: { ...TSC_INIT_OPTIONS, rootDir: 'blocks', outDir: 'out' }, include: ['blocks'] };
  writeFileSync(join(app, 'tsconfig.json'), `${JSON.stringify(tsconfig, null, 2)}\n`);
  run(join(app, 'node_modules', '.bin', 'tsc'), ['-p', app], app);
  // Again without skipLibCheck for the blocks that use only Tidings: this checks the .d.ts files we publish
  // (and what they pull in) under the same options. Other libraries' declarations are theirs to fix.
  const ours = [...blocks].filter(([, block]) => [...importedPackages(block.code)].every((dependency) => dependency.startsWith('@tidings/')));
  const libcheck = { extends: './tsconfig.json', compilerOptions: { skipLibCheck: false, noEmit: true }, include: [], files: ours.map(([name, block]) => `blocks/${name}.${block.lang}`) };
  writeFileSync(join(app, 'tsconfig.libcheck.json'), `${JSON.stringify(libcheck, null, 2)}\n`);
  run(join(app, 'node_modules', '.bin', 'tsc'), ['-p', join(app, 'tsconfig.libcheck.json')], app);
}

/** Runs the blocks that run and compares what they print with the output the docs show. */
function runBlocks(blocks) {
  for (const [name, block] of blocks) {
    if (!block.run) {
      console.log(`(${name}: typecheck only)`);
      continue;
    }
    let printed;
    try {
      printed = execFileSync(process.execPath, [join(app, 'out', `${name}.js`)], { cwd: app, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    } catch (error) {
      fail(`the "${name}" block (${block.where}) failed: ${error.message}`);
    }
    process.stdout.write(printed);
    if (block.output !== null && printed !== block.output) fail(`the "${name}" block (${block.where}) printed\n${printed}\nbut the docs show\n${block.output}`);
  }
}

/**
 * Starts the installed `tidings serve` with `args`, creates a workflow, triggers it and reads the feed
 * with the key it printed (or `apiKey`), and stops it with SIGTERM, which must exit 0.
 */
async function serveFromBin(args, { apiKey, ready = /API key/ } = {}) {
  const child = spawn(join(app, 'node_modules', '.bin', 'tidings'), ['serve', '--port', '0', ...args], { cwd: app, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + 60_000;
  while (!ready.test(output)) {
    if (Date.now() > deadline || child.exitCode !== null) fail(`tidings serve did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
  const key = apiKey ?? /API key \(new, kept in \S+\): (\S+)/.exec(output)?.[1];
  if (!url || !key) fail(`tidings serve printed no URL or key:\n${output}`);
  const headers = { authorization: `ApiKey ${key}`, 'content-type': 'application/json' };
  const workflow = await fetch(`${url}/v1/workflows`, { method: 'POST', headers, body: JSON.stringify({ name: 'Hi', triggers: [{ identifier: 'hi' }], steps: [{ template: { type: 'in_app', content: 'Hi {{ subscriber.firstName }}' } }] }) });
  const trigger = await fetch(`${url}/v1/events/trigger`, { method: 'POST', headers, body: JSON.stringify({ name: 'hi', to: { subscriberId: 'ada', firstName: 'Ada' } }) });
  const feed = await (await fetch(`${url}/v1/subscribers/ada/notifications/feed`, { headers })).json();
  // The activity page's built files ship in the package.
  const page = await fetch(`${url}/activity/`);
  const script = await fetch(`${url}/activity/activity.js`);
  const pageOk = page.status === 200 && script.status === 200 && (await script.text()).includes('Tidings activity page');
  child.kill('SIGTERM');
  const code = await exited;
  if (workflow.status !== 201 || trigger.status !== 201 || feed.data?.[0]?.content !== 'Hi Ada') fail(`tidings serve answered ${workflow.status}, ${trigger.status}, ${JSON.stringify(feed)}`);
  if (!pageOk) fail(`tidings serve answered ${page.status} for /activity/ and ${script.status} for its script`);
  if (code !== 0) fail(`tidings serve exited with ${code} on SIGTERM:\n${output}`);
  console.log(`tidings serve ${args.join(' ')}: 201, 201, feed "Hi Ada", /activity/ 200, stopped with exit code 0`);
  return output;
}

/** `--processes 2` from the installed bin: each copy re-runs the bin, so this is where packaging could break it. */
async function clusterFromBin(pgUrl) {
  const schema = `tidings_consumer_${process.pid}`;
  try {
    const output = await serveFromBin(['--postgres', pgUrl, '--schema', schema, '--processes', '2', '--api-key', 'consumer-key'], { apiKey: 'consumer-key', ready: /Application identifier/ });
    if (!/\(2 processes: \d+, \d+\)/.test(output)) fail(`tidings serve --processes 2 did not report two processes:\n${output}`);
  } finally {
    run(process.execPath, ['-e', `const pg = require('pg'); const c = new pg.Client(${JSON.stringify(pgUrl)}); c.connect().then(() => c.query('drop schema if exists "${schema}" cascade')).then(() => c.end())`], app);
  }
}

/** `--mysql` from the installed bin, in a database of its own, dropped after. */
async function mysqlFromBin(mysqlUrl) {
  const database = `tidings_consumer_${process.pid}`;
  const url = new URL(mysqlUrl);
  url.pathname = `/${database}`;
  const admin = (statement) =>
    run(process.execPath, ['-e', `const m = require('mysql2/promise'); m.createConnection(${JSON.stringify(mysqlUrl)}).then(async (c) => { await c.query(${JSON.stringify(statement)}); await c.end(); })`], app);
  admin(`create database \`${database}\``);
  try {
    await serveFromBin(['--mysql', url.toString(), '--api-key', 'consumer-key'], { apiKey: 'consumer-key', ready: /Application identifier/ });
  } finally {
    admin(`drop database if exists \`${database}\``);
  }
}

/** What a user installs must not carry the workspace: no source condition, no driver it does not use. */
function checkInstalledManifests() {
  for (const { name } of PACKAGES) {
    const manifest = JSON.parse(readFileSync(join(app, 'node_modules', name, 'package.json'), 'utf8'));
    if (JSON.stringify(manifest.exports).includes('@tidings/source')) fail(`${name} was published with the @tidings/source condition`);
    for (const file of ['README.md', 'LICENSE']) if (!readdirSync(join(app, 'node_modules', name)).includes(file)) fail(`${name} ships no ${file}`);
    if (!manifest.engines?.node || !manifest.repository) fail(`${name} has no engines or repository`);
  }
  const http = JSON.parse(readFileSync(join(app, 'node_modules', '@tidings/http', 'package.json'), 'utf8'));
  for (const driver of ['@tidings/sqlite', '@tidings/postgres', '@tidings/mysql']) if (http.dependencies?.[driver]) fail(`@tidings/http depends on ${driver}: every HTTP user would install it`);
  // The command's own dependencies are @tidings/cli's: a library user of the app factory does not install them.
  for (const dependency of ['pino', '@opentelemetry/exporter-prometheus', '@opentelemetry/sdk-metrics']) if (http.dependencies?.[dependency]) fail(`@tidings/http depends on ${dependency}, which only the CLI (@tidings/cli) needs`);
  const cli = JSON.parse(readFileSync(join(app, 'node_modules', '@tidings/cli', 'package.json'), 'utf8'));
  for (const driver of ['@tidings/sqlite', '@tidings/postgres', '@tidings/mysql']) if (cli.dependencies?.[driver]) fail(`@tidings/cli depends on ${driver}: every user would install every backend`);
  if (http.bin) fail('@tidings/http declares a bin: the `tidings` command is @tidings/cli\'s');
}

async function main() {
  const blocks = readDocBlocks();

  step('build every package');
  run('pnpm', ['build'], root);

  step('publint and pack every package');
  mkdirSync(packs, { recursive: true });
  for (const { dir } of PACKAGES) {
    run('npx', ['--no-install', 'publint', '--pack', 'pnpm', '--strict'], join(root, dir));
    run('pnpm', ['pack', '--pack-destination', packs], join(root, dir));
  }

  step(`install the tarballs with npm into ${app}`);
  mkdirSync(app, { recursive: true });
  const tarballs = readdirSync(packs);
  const dependencies = Object.fromEntries(
    PACKAGES.map(({ name }) => {
      const tarball = tarballs.find((file) => file.startsWith(`${name.replace('@', '').replace('/', '-')}-`));
      if (!tarball) fail(`no tarball for ${name}`);
      return [name, `file:${join(packs, tarball)}`];
    }),
  );
  const manifest = {
    name: 'tidings-consumer',
    private: true,
    type: 'module',
    dependencies: { ...dependencies, 'better-sqlite3': catalogVersion('better-sqlite3'), pg: catalogVersion('pg'), mysql2: catalogVersion('mysql2'), ...blockDependencies(blocks) },
    devDependencies: { typescript: catalogVersion('typescript'), '@types/node': catalogVersion('@types/node') },
  };
  writeFileSync(join(app, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], app);
  checkInstalledManifests();

  step(`type-check the ${blocks.size} code blocks of README.md and docs/*.md (tsc --init options: strict, noUncheckedIndexedAccess, …)`);
  typecheckBlocks(blocks);

  step('run the code blocks and compare what they print with the docs');
  runBlocks(blocks);

  step('tidings serve from the installed bin');
  await serveFromBin(['--db', join(app, 'serve', 'tidings.db')]);
  const pgUrl = process.env.TIDINGS_TEST_PG_URL;
  if (pgUrl) {
    step('tidings serve --postgres … --processes 2 from the installed bin');
    await clusterFromBin(pgUrl);
  } else console.log('skipped tidings serve --processes 2: set TIDINGS_TEST_PG_URL to run it');
  const mysqlUrl = process.env.TIDINGS_TEST_MYSQL_URL;
  if (mysqlUrl) {
    step('tidings serve --mysql … from the installed bin');
    await mysqlFromBin(mysqlUrl);
  } else console.log('skipped tidings serve --mysql: set TIDINGS_TEST_MYSQL_URL to run it');
  console.log('\n✓ consumer test passed');
}

try {
  await main();
} finally {
  if (!keep) rmSync(work, { recursive: true, force: true });
  else console.log(`kept ${work}`);
}
