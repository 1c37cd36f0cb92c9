#!/usr/bin/env node
// `pnpm release --dry-run` shows what a release would publish; `pnpm release` publishes it. Every
// package carries one version; CHANGELOG.md must have a section for it. Each package is built, checked
// with publint and packed the way it is published (pnpm replaces `workspace:` ranges and applies
// `publishConfig`, which drops the source condition from `exports`).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PACKAGES } from './packages.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dryRun = process.argv.includes('--dry-run');

function fail(message) {
  console.error(`✗ release: ${message}`);
  process.exit(1);
}

const run = (command, args, cwd = root) => execFileSync(command, args, { cwd, stdio: 'inherit' });
const read = (command, args, cwd = root) => execFileSync(command, args, { cwd, encoding: 'utf8' });

const versions = new Set(PACKAGES.map((p) => p.version));
if (versions.size !== 1) fail(`the packages carry different versions: ${PACKAGES.map((p) => `${p.name}@${p.version}`).join(', ')}`);
const [version] = versions;
const changelog = readFileSync(join(root, 'CHANGELOG.md'), 'utf8');
if (!new RegExp(`^## ${version.replace(/\./g, '\\.')}\\b`, 'm').test(changelog)) fail(`CHANGELOG.md has no "## ${version}" section`);
if (!dryRun && read('git', ['status', '--porcelain']).trim() !== '') fail('the working tree has uncommitted changes');

run('pnpm', ['build']);
for (const { dir } of PACKAGES) run('npx', ['--no-install', 'publint', '--pack', 'pnpm', '--strict'], join(root, dir));

console.log(`\n${dryRun ? 'Would publish' : 'Publishing'} version ${version}:`);
for (const { dir, name } of PACKAGES) {
  const published = (() => {
    try {
      return read('npm', ['view', `${name}@${version}`, 'version'], root).trim() === version;
    } catch {
      return false;
    }
  })();
  if (published) fail(`${name}@${version} is already on the registry: raise the version first`);
  console.log(`\n• ${name}@${version} (${dir})`);
  run('pnpm', ['publish', '--access', 'public', '--no-git-checks', ...(dryRun ? ['--dry-run'] : [])], join(root, dir));
}
console.log(dryRun ? `\nDry run: nothing was published. \`pnpm release\` publishes ${PACKAGES.length} packages at ${version}.` : `\nPublished ${PACKAGES.length} packages at ${version}.`);
