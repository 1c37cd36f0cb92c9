import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTidings } from '@tidings/core';
import { sqliteStorage } from '@tidings/sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { keysCommand } from '../src/keys-command.js';

const root = mkdtempSync(join(tmpdir(), 'tidings-keys-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function run(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await keysCommand(args, {}, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err };
}

async function withEngine<T>(db: string, fn: (tidings: ReturnType<typeof createTidings>) => Promise<T>): Promise<T> {
  const storage = sqliteStorage({ filename: db });
  try {
    return await fn(createTidings({ storage }));
  } finally {
    await storage.close();
  }
}

describe('tidings keys', () => {
  it('create prints the secret once, list shows keys without it, rotate makes a second live key, revoke stops one; each change is audited as cli', async () => {
    const db = join(root, 'tidings.db');
    const created = await run(['create', '--name', 'deploy', '--scope', 'trigger', '--db', db]);
    expect(created.code).toBe(0);
    const secret = created.out[1]!;
    expect(secret).toMatch(/^tdk_/);
    const id = created.out[0]!.split(' ')[1]!;
    expect(await withEngine(db, (t) => t.apiKeys.verify(secret))).toMatchObject({ name: 'deploy', scope: 'trigger' });

    const listed = await run(['list', '--db', db]);
    expect(listed.out.join('\n')).toContain(`${id}  deploy  trigger  created`);
    expect(listed.out.join('\n')).not.toContain(secret);

    const rotated = await run(['rotate', id, '--db', db]);
    expect(rotated.code).toBe(0);
    expect(await withEngine(db, (t) => t.apiKeys.verify(rotated.out[1]!))).toMatchObject({ name: 'deploy' });
    expect(await withEngine(db, (t) => t.apiKeys.verify(secret))).not.toBeNull();

    expect((await run(['revoke', id, '--db', db])).code).toBe(0);
    expect(await withEngine(db, (t) => t.apiKeys.verify(secret))).toBeNull();
    const audit = await withEngine(db, (t) => t.audit.list({ kind: 'api-key' }));
    expect(audit.items.map((e) => [e.action, e.who])).toEqual([['revoked', 'cli'], ['rotated', 'cli'], ['created', 'cli']]);
  });

  it('a mistake on the command line is exit 2; a refused key is exit 1 naming the field', async () => {
    const db = join(root, 'refused.db');
    expect((await run(['create', '--db', db])).code).toBe(2);
    expect((await run(['shred', '--db', db])).code).toBe(2);
    const bad = await run(['create', '--name', 'x', '--scope', 'everything', '--db', db]);
    expect(bad.code).toBe(1);
    expect(bad.err.join('\n')).toContain('scope');
    expect((await run(['revoke', '0123456789abcdef01234567', '--db', db])).code).toBe(1);
  });
});
