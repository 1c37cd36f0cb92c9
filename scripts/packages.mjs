// The published packages, in dependency order, and the versions the workspace catalog pins.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

export const PACKAGES = ['core', 'memory', 'sql', 'sqlite', 'postgres', 'mysql', 'providers', 'framework', 'http', 'cli'].map((short) => {
  const dir = join('packages', short);
  const manifest = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
  return { dir, name: manifest.name, version: manifest.version };
});

/** The version range `pnpm-workspace.yaml`'s catalog gives a dependency. */
export function catalogVersion(name) {
  const yaml = readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8');
  const line = yaml.split('\n').find((l) => l.trim().replace(/^"|"(?=:)/g, '').startsWith(`${name}:`));
  if (!line) throw new Error(`${name} is not in the pnpm catalog`);
  return line.slice(line.indexOf(':') + 1).trim();
}
