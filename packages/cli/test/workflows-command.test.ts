import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTidings } from '@tidings/core';
import { sqliteStorage } from '@tidings/sqlite';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { killSpawned, spawnTs } from '../../../test-support/spawn-ts.js';
import { workflowsCommand } from '../src/workflows-command.js';

afterEach(killSpawned);

const root = mkdtempSync(join(tmpdir(), 'tidings-workflows-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Runs the command in this process, collecting what it prints. */
async function run(args: string[], env: NodeJS.ProcessEnv = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await workflowsCommand(args, env, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err };
}

const file = (identifier: string, content: string) => ({ name: identifier, triggers: [{ identifier }], steps: [{ template: { type: 'in_app', content } }] });

async function stored(db: string, environmentId = 'default') {
  const storage = sqliteStorage({ filename: db });
  try {
    return await createTidings({ storage, environmentId }).workflows.list();
  } finally {
    await storage.close();
  }
}

describe('tidings workflows', () => {
  it('apply prints the plan and applies it; again it is a no-op; --dry-run changes nothing; --prune removes; export writes files that apply back as a no-op; --env picks the environment', async () => {
    const dir = join(root, 'one', 'workflows');
    const db = join(root, 'one', 'tidings.db');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'hello.json'), JSON.stringify(file('hello', 'Hi')));
    writeFileSync(join(dir, 'bye.json'), JSON.stringify(file('bye', 'Bye')));
    writeFileSync(join(dir, 'notes.txt'), 'not a workflow');

    const dry = await run(['apply', '--dir', dir, '--db', db, '--dry-run']);
    expect(dry).toMatchObject({ code: 0, err: [] });
    expect(dry.out).toEqual(['+ bye (bye.json): added', '+ hello (hello.json): added', '2 to add, 0 to change, 0 to remove, 0 unchanged.', 'Dry run: nothing was applied.']);
    expect(await stored(db)).toEqual([]);

    expect((await run(['apply', '--dir', dir, '--db', db])).out.at(-1)).toBe('Applied.');
    expect((await stored(db)).map((w) => w.identifier).sort()).toEqual(['bye', 'hello']);
    expect((await run(['apply', '--dir', dir, '--db', db])).out).toEqual(['No changes: 2 workflows as stored.', 'Nothing to apply.']);

    writeFileSync(join(dir, 'hello.json'), JSON.stringify(file('hello', 'Hello')));
    rmSync(join(dir, 'bye.json'));
    const changed = await run(['apply', '--dir', dir, '--db', db, '--prune']);
    expect(changed.out[0]).toBe('~ hello (hello.json): changed');
    expect(changed.out[1]).toMatch(/^ {4}~ step 1 \(in_app "[^"]+"\) template\.content: "Hi" → "Hello"$/);
    expect(changed.out.slice(2)).toEqual(['- bye: removed', '0 to add, 1 to change, 1 to remove, 0 unchanged.', 'Applied.']);

    const exported = join(root, 'one', 'exported');
    expect((await run(['export', '--dir', exported, '--db', db])).out).toEqual([`Exported 1 workflow to ${exported}: hello.json`]);
    expect(readdirSync(exported)).toEqual(['hello.json']);
    expect(JSON.parse(readFileSync(join(exported, 'hello.json'), 'utf8'))).toMatchObject({ name: 'hello', steps: [{ template: { content: 'Hello' } }] });
    expect((await run(['apply', '--dir', exported, '--db', db])).out.at(-1)).toBe('Nothing to apply.');

    expect((await run(['apply', '--dir', exported, '--db', db, '--env', 'production'])).out.at(-1)).toBe('Applied.');
    expect((await stored(db, 'production')).map((w) => w.identifier)).toEqual(['hello']);
    expect((await run(['apply', '--dir', exported], { TIDINGS_DATABASE_URL: db, TIDINGS_ENVIRONMENT: 'production' })).out.at(-1)).toBe('Nothing to apply.');
  });

  it('a bad file refuses the whole apply naming the file and the field (exit 1); a file that is not JSON too; usage mistakes exit 2', async () => {
    const dir = join(root, 'two');
    const db = join(dir, 'tidings.db');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'good.json'), JSON.stringify(file('good', 'fine')));
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ ...file('bad', 'x'), steps: [{ template: { type: 'in_app', content: '{{ broken' } }] }));
    const refused = await run(['apply', '--dir', dir, '--db', db]);
    expect(refused.code).toBe(1);
    expect(refused.err[0]).toMatch(/^Refused, nothing applied: Invalid workflow files/);
    expect(refused.err.some((l) => l.startsWith('  bad.json:steps[0].template.content: template does not parse'))).toBe(true);
    expect(await stored(db)).toEqual([]);

    writeFileSync(join(dir, 'bad.json'), '{ "name": ');
    const notJson = await run(['apply', '--dir', dir, '--db', db]);
    expect(notJson.code).toBe(1);
    expect(notJson.err[0]).toMatch(/^Refused, nothing applied: bad\.json: not JSON/);

    for (const args of [['apply'], ['import', '--dir', dir], ['export', '--dir', dir, '--prune'], ['apply', '--dir', dir, '--nope']]) {
      const mistake = await run(args);
      expect(mistake.code, args.join(' ')).toBe(2);
      expect(mistake.err.join('\n')).toContain('Usage: tidings workflows');
    }
  });

  it('is a command of the tidings binary', async () => {
    const dir = join(root, 'three');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'hello.json'), JSON.stringify(file('hello', 'Hi')));
    const child = spawnTs('packages/cli/src/cli.ts', ['workflows', 'apply', '--dir', dir, '--db', join(dir, 'tidings.db'), '--dry-run']);
    expect(await child.exited).toBe(0);
    expect(child.output()).toContain('+ hello (hello.json): added');
  });
});
