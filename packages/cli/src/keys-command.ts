import { parseArgs } from 'node:util';
import type { Tidings } from '@tidings/core';
import { actingAs } from '@tidings/core/internal';
import { CONSOLE, readDatabaseArguments, runOnDatabase, UsageError, type CommandOutput, type DatabaseArguments } from './database-command.js';

export const KEYS_HELP = [
  'Usage: tidings keys create --name <name> [--scope full|trigger|read] [--expires <ISO date>] [--env <id>] [database]',
  '       tidings keys list [--env <id>] [database]',
  '       tidings keys revoke <id> [--env <id>] [database]',
  '       tidings keys rotate <id> [--retire-old-at <ISO date>] [--env <id>] [database]',
  '',
  'API keys stored in the database, beside the one tidings serve is given (--api-key): several per',
  'environment, each named and scoped (full: everything; trigger: only trigger, bulk and broadcast;',
  'read: only GET requests), optionally expiring, hashed at rest. create and rotate print the secret',
  'once; it is never shown again. rotate makes a new key with the same name and scope, and the old one',
  'keeps working until revoked (or --retire-old-at), so a deploy rotates without downtime. Each change',
  'is in the audit log as made by "cli". A running tidings serve sees changes at once.',
  '',
  'Options:',
  '  --env <id>       The environment. Environment: TIDINGS_ENVIRONMENT. Default: default',
  '  database         --db <file>, --postgres <url> or --mysql <url> (with --schema <name> for Postgres),',
  '                   else TIDINGS_DATABASE_URL, as for tidings serve. Default: .tidings/tidings.db',
  '',
  'Exit status: 0 done, 1 refused or failed, 2 a mistake on the command line.',
].join('\n');



type KeysAction = { action: 'create'; name: string; scope: string | undefined; expiresAt: string | undefined } | { action: 'list' } | { action: 'revoke'; id: string } | { action: 'rotate'; id: string; retireOldAt: string | undefined };

function readKeysArguments(args: readonly string[], env: NodeJS.ProcessEnv): DatabaseArguments & { what: KeysAction } {
  const [action, ...rest] = args;
  let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({
      args: [...rest],
      allowPositionals: true,
      options: { name: { type: 'string' }, scope: { type: 'string' }, expires: { type: 'string' }, 'retire-old-at': { type: 'string' }, env: { type: 'string' }, db: { type: 'string' }, postgres: { type: 'string' }, mysql: { type: 'string' }, schema: { type: 'string' } },
    });
  } catch (error) {
    throw new UsageError((error as Error).message.split('\n')[0]!);
  }
  const { values, positionals } = parsed;
  const text = (flag: string) => (typeof values[flag] === 'string' ? (values[flag] as string) : undefined);
  let what: KeysAction;
  if (action === 'create') {
    const name = text('name');
    if (name === undefined) throw new UsageError('--name <name> is needed: what people know the key by');
    what = { action, name, scope: text('scope'), expiresAt: text('expires') };
  } else if (action === 'list') what = { action };
  else if (action === 'revoke' || action === 'rotate') {
    const [id] = positionals;
    if (id === undefined) throw new UsageError(`${action} needs the key's id (tidings keys list shows it)`);
    what = action === 'revoke' ? { action, id } : { action, id, retireOldAt: text('retire-old-at') };
  } else throw new UsageError(action === undefined ? 'Missing what to do: create, list, revoke or rotate' : `Unknown action ${action}: create, list, revoke or rotate`);
  if (positionals.length > (action === 'revoke' || action === 'rotate' ? 1 : 0)) throw new UsageError(`Unexpected argument ${positionals.at(-1)}`);
  return { what, ...readDatabaseArguments(values, env) };
}

/** `tidings keys create|list|revoke|rotate`: returns the exit status. */
export function keysCommand(args: readonly string[], env: NodeJS.ProcessEnv = process.env, output: CommandOutput = CONSOLE): Promise<number> {
  return runOnDatabase({ help: KEYS_HELP, usageLines: 4, read: readKeysArguments, refused: 'nothing changed', run: (tidings, parsed) => runKeys(tidings, parsed, output) }, args, env, output);
}

async function runKeys(tidings: Tidings, parsed: ReturnType<typeof readKeysArguments>, output: CommandOutput): Promise<number> {
  const keys = tidings.apiKeys;
  const { what } = parsed;
  return actingAs('cli', async () => {
    if (what.action === 'list') {
      const all = await keys.list();
      if (all.length === 0) output.out('No stored API keys.');
      for (const k of all) output.out(`${k.id}  ${k.name}  ${k.scope}  created ${k.createdAt} by ${k.createdBy}  ${k.expiresAt === null ? 'never expires' : `${k.expired ? 'expired' : 'expires'} ${k.expiresAt}`}`);
    } else if (what.action === 'revoke') {
      await keys.revoke(what.id);
      output.out(`Revoked ${what.id}: it no longer works.`);
    } else {
      const made =
        what.action === 'create'
          ? await keys.create({ name: what.name, ...(what.scope !== undefined && { scope: what.scope as never }), ...(what.expiresAt !== undefined && { expiresAt: what.expiresAt }) })
          : await keys.rotate(what.id, what.retireOldAt === undefined ? {} : { retireOldAt: what.retireOldAt });
      output.out(`${what.action === 'create' ? 'Created' : `Rotated ${what.id} into`} ${made.id} "${made.name}" (${made.scope}${made.expiresAt ? `, expires ${made.expiresAt}` : ''}). Its secret, shown this once:`);
      output.out(made.secret);
    }
    return 0;
  });
}
