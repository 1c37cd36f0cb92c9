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
    expect(notJson.err[0]).toMatch(/^Refused, nothing applied: Invalid workflow files/);
    expect(notJson.err).toContain('  bad.json: is not JSON: ' + notJson.err.find((l) => l.startsWith('  bad.json: is not JSON: '))!.slice('  bad.json: is not JSON: '.length));

    for (const args of [['apply'], ['import', '--dir', dir], ['export', '--dir', dir, '--prune'], ['apply', '--dir', dir, '--nope']]) {
      const mistake = await run(args);
      expect(mistake.code, args.join(' ')).toBe(2);
      expect(mistake.err.join('\n')).toContain('Usage: tidings workflows');
    }
  });

  it('export writes layouts, partials and catalogs as files beside the workflows; apply reads them back (a no-op), in another environment too; --prune prunes a kind only when its folder is there', async () => {
    const dir = join(root, 'four');
    const db = join(dir, 'tidings.db');
    mkdirSync(dir, { recursive: true });
    const storage = sqliteStorage({ filename: db });
    try {
      const tidings = createTidings({ storage });
      await tidings.workflows.upsert(file('hello', 'Hi') as never);
      await tidings.layouts.upsert({ identifier: 'main', name: 'Main', content: '<html><body>\n{{ content }}\n</body></html>', isDefault: true });
      await tidings.partials.upsert({ identifier: 'button', content: '<a>{{ label }}</a>' });
      await tidings.translations.upsert({ locale: 'de', entries: { hello: 'Hallo' } });
      await tidings.translations.upsert({ locale: 'fr', tenant: 'acme', entries: { hello: 'Salut' } });
    } finally {
      await storage.close();
    }
    const exported = join(dir, 'exported');
    const done = await run(['export', '--dir', exported, '--db', db]);
    expect(done.out).toEqual([`Exported 1 workflow, 1 layout, 1 partial and 2 catalogs to ${exported}: hello.json, layouts/main.json, layouts/main.html, partials/button.html, translations/de.json, translations/acme/fr.json`]);
    expect(readFileSync(join(exported, 'layouts', 'main.html'), 'utf8')).toBe('<html><body>\n{{ content }}\n</body></html>');
    expect(JSON.parse(readFileSync(join(exported, 'translations', 'acme', 'fr.json'), 'utf8'))).toEqual({ hello: 'Salut' });
    expect((await run(['apply', '--dir', exported, '--db', db, '--prune'])).out).toEqual(['No changes: 1 workflow, 1 layout, 1 partial and 2 catalogs as stored.', 'Nothing to apply.']);

    // An edit of the layout's content shows the lines that changed; a folder without partials/ leaves them as stored, even with --prune.
    writeFileSync(join(exported, 'layouts', 'main.html'), '<html><body>\n<h1>Acme</h1>\n{{ content }}\n</body></html>');
    rmSync(join(exported, 'partials'), { recursive: true });
    rmSync(join(exported, 'translations', 'de.json'));
    const applied = await run(['apply', '--dir', exported, '--db', db, '--prune']);
    expect(applied.out).toEqual(['~ layout main (layouts/main.html): changed', '    ~ content: from line 2', '        + <h1>Acme</h1>', '- catalog de: removed', '0 to add, 1 to change, 1 to remove, 2 unchanged.', 'Applied.']);
    expect((await run(['apply', '--dir', exported, '--db', db, '--env', 'production'])).out.at(-2)).toBe('3 to add, 0 to change, 0 to remove, 0 unchanged.');

    writeFileSync(join(exported, 'layouts', 'main.html'), '<html>no slot</html>');
    const refused = await run(['apply', '--dir', exported, '--db', db]);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('  layouts/main.html:content: must hold the body\'s place, "{{ content }}"');
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
