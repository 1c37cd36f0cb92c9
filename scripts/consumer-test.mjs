#!/usr/bin/env node
// The consumer test: Tidings as a user gets it from the registry. Builds every package, checks each
// with publint, packs it with pnpm, installs the tarballs with npm into a fresh project outside the
// workspace (no workspace links, no source condition), type-checks the README's consumer blocks with
// `tsc --strict`, runs them and compares what they print with the README, then starts `tidings serve`
// from the installed bin and calls it. Any failure exits non-zero.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
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
 * What a README fragment assumes is already there, named by its marker (`prelude: engine`): an engine
 * on the memory backend with a tagged workflow and three messages in ada's feed, or only a storage.
 */
const PRELUDES = {
  storage: [`import { createTidings } from '@tidings/core';`, `import { memoryStorage } from '@tidings/memory';`, `const storage = memoryStorage();`].join('\n'),
  engine: [
    `import { createTidings } from '@tidings/core';`,
    `import { memoryStorage } from '@tidings/memory';`,
    `const tidings = createTidings({ storage: memoryStorage(), inlineInApp: true });`,
    `await tidings.workflows.upsert({ name: 'Comment received', triggers: [{ identifier: 'comment-received' }], tags: ['billing'], steps: [{ template: { type: 'in_app', content: 'Comment {{ payload.n }}' } }] });`,
    `for (const n of [1, 2, 3]) await tidings.trigger({ name: 'comment-received', to: 'ada', payload: { n } });`,
  ].join('\n'),
};

/**
 * The README's consumer blocks and their expected output. A block is marked `<!-- consumer: name -->`
 * before its ts fence, with options in parentheses: `prelude: engine` (see PRELUDES) and
 * `typecheck only` (it needs what a test machine lacks, such as a Postgres URL).
 */
function readmeBlocks() {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const blocks = new Map();
  for (const match of readme.matchAll(/<!-- consumer: ([\w-]+)(?: \(([^)]*)\))? -->\n```ts\n([\s\S]*?)```/g)) {
    const options = (match[2] ?? '').split(',').map((o) => o.trim()).filter(Boolean);
    const preludeName = options.find((o) => o.startsWith('prelude:'))?.slice('prelude:'.length).trim();
    if (preludeName !== undefined && !(preludeName in PRELUDES)) fail(`README block "${match[1]}" names an unknown prelude "${preludeName}"`);
    const prelude = preludeName === undefined ? '' : `${PRELUDES[preludeName]}\n`;
    blocks.set(match[1], { code: prelude + match[3], output: null, run: !options.includes('typecheck only') });
  }
  for (const match of readme.matchAll(/<!-- consumer-output: ([\w-]+) -->\n```\n([\s\S]*?)```/g)) {
    const block = blocks.get(match[1]);
    if (!block) fail(`README has output for "${match[1]}" but no consumer block of that name`);
    block.output = match[2];
  }
  if (blocks.size === 0) fail('README has no consumer blocks');
  return blocks;
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
  child.kill('SIGTERM');
  const code = await exited;
  if (workflow.status !== 201 || trigger.status !== 201 || feed.data?.[0]?.content !== 'Hi Ada') fail(`tidings serve answered ${workflow.status}, ${trigger.status}, ${JSON.stringify(feed)}`);
  if (code !== 0) fail(`tidings serve exited with ${code} on SIGTERM:\n${output}`);
  console.log(`tidings serve ${args.join(' ')}: 201, 201, feed "Hi Ada", stopped with exit code 0`);
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

/** What a user installs must not carry the workspace: no source condition, no driver it does not use. */
function checkInstalledManifests() {
  for (const { name } of PACKAGES) {
    const manifest = JSON.parse(readFileSync(join(app, 'node_modules', name, 'package.json'), 'utf8'));
    if (JSON.stringify(manifest.exports).includes('@tidings/source')) fail(`${name} was published with the @tidings/source condition`);
    for (const file of ['README.md', 'LICENSE']) if (!readdirSync(join(app, 'node_modules', name)).includes(file)) fail(`${name} ships no ${file}`);
    if (!manifest.engines?.node || !manifest.repository) fail(`${name} has no engines or repository`);
  }
  const http = JSON.parse(readFileSync(join(app, 'node_modules', '@tidings/http', 'package.json'), 'utf8'));
  for (const driver of ['@tidings/sqlite', '@tidings/postgres']) if (http.dependencies?.[driver]) fail(`@tidings/http depends on ${driver}: every HTTP user would install it`);
}

async function main() {
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
    dependencies: { ...dependencies, 'better-sqlite3': catalogVersion('better-sqlite3'), pg: catalogVersion('pg') },
    devDependencies: { typescript: catalogVersion('typescript'), '@types/node': catalogVersion('@types/node') },
  };
  writeFileSync(join(app, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], app);
  checkInstalledManifests();

  step('type-check the README blocks with tsc --strict');
  const blocks = readmeBlocks();
  for (const [name, { code }] of blocks) writeFileSync(join(app, `${name}.ts`), code);
  const tsconfig = { compilerOptions: { strict: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', outDir: 'out', types: ['node'], skipLibCheck: false }, include: ['*.ts'] };
  writeFileSync(join(app, 'tsconfig.json'), `${JSON.stringify(tsconfig, null, 2)}\n`);
  run(join(app, 'node_modules', '.bin', 'tsc'), ['-p', app], app);

  step('run the README blocks');
  for (const [name, { output, run: runs }] of blocks) {
    if (!runs) continue;
    const printed = execFileSync(process.execPath, [join(app, 'out', `${name}.js`)], { cwd: app, encoding: 'utf8' });
    process.stdout.write(printed);
    if (output !== null && printed !== output) fail(`the "${name}" block printed\n${printed}\nbut the README shows\n${output}`);
  }

  step('tidings serve from the installed bin');
  await serveFromBin(['--db', join(app, 'serve', 'tidings.db')]);
  const pgUrl = process.env.TIDINGS_TEST_PG_URL;
  if (pgUrl) {
    step('tidings serve --postgres … --processes 2 from the installed bin');
    await clusterFromBin(pgUrl);
  } else console.log('skipped tidings serve --processes 2: set TIDINGS_TEST_PG_URL to run it');
  console.log('\n✓ consumer test passed');
}

try {
  await main();
} finally {
  if (!keep) rmSync(work, { recursive: true, force: true });
  else console.log(`kept ${work}`);
}
