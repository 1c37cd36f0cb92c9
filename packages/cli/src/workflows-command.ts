import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createTidings, isTidingsError, type Tidings } from '@tidings/core';
import { readArguments } from './cli.js';
import { openDatabase, type ServeOptions } from './serve.js';

export const WORKFLOWS_HELP = [
  'Usage: tidings workflows export --dir <folder> [--env <id>] [database]',
  '       tidings workflows apply --dir <folder> [--dry-run] [--prune] [--env <id>] [database]',
  '',
  'Keeps stored workflows as JSON files in a folder of your repository: export writes one',
  '<identifier>.json per stored workflow; apply prints a plan (added, changed with a diff, removed with',
  '--prune) and applies it in one transaction, each change a new revision. Applying unchanged files does',
  'nothing. One bad file refuses the whole apply, naming the file and the field.',
  '',
  'Options:',
  '  --dir <folder>   The folder of workflow files (apply reads every *.json in it).',
  '  --dry-run        apply: print the plan and change nothing.',
  '  --prune          apply: delete stored workflows that no file names.',
  '  --env <id>       The environment to read or change, so the same files promote from one to the next.',
  '                   Environment: TIDINGS_ENVIRONMENT. Default: default',
  '  database         --db <file>, --postgres <url> or --mysql <url> (with --schema <name> for Postgres),',
  '                   else TIDINGS_DATABASE_URL, as for tidings serve. Default: .tidings/tidings.db',
  '',
  'Exit status: 0 done (or nothing to do), 1 refused or failed, 2 a mistake on the command line.',
].join('\n');

/** Where the command writes: lines for people (the plan, what was done) and lines about what went wrong. */
export interface CommandOutput {
  out(line: string): void;
  err(line: string): void;
}

const CONSOLE: CommandOutput = { out: (line) => console.log(line), err: (line) => console.error(line) };

class UsageError extends Error {}

interface WorkflowsArguments {
  readonly action: 'export' | 'apply';
  readonly dir: string;
  readonly dryRun: boolean;
  readonly prune: boolean;
  readonly environmentId: string | undefined;
  readonly database: ServeOptions;
}

/** The command line (after `workflows`) and the environment, read and checked before anything is opened. */
function readWorkflowsArguments(args: readonly string[], env: NodeJS.ProcessEnv): WorkflowsArguments {
  const [action, ...rest] = args;
  if (action !== 'export' && action !== 'apply') throw new UsageError(action === undefined ? 'Missing what to do: export or apply' : `Unknown action ${action}: export or apply`);
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args: [...rest],
      options: { dir: { type: 'string' }, 'dry-run': { type: 'boolean' }, prune: { type: 'boolean' }, env: { type: 'string' }, db: { type: 'string' }, postgres: { type: 'string' }, mysql: { type: 'string' }, schema: { type: 'string' } },
    }).values;
  } catch (error) {
    throw new UsageError((error as Error).message.split('\n')[0]!);
  }
  const dir = typeof values['dir'] === 'string' ? values['dir'].trim() : '';
  if (dir === '') throw new UsageError('--dir <folder> is needed: the folder of workflow files');
  if (action === 'export' && (values['dry-run'] || values['prune'])) throw new UsageError(`${values['dry-run'] ? '--dry-run' : '--prune'} is for apply`);
  const environmentId = (typeof values['env'] === 'string' ? values['env'] : env['TIDINGS_ENVIRONMENT'])?.trim() || undefined;
  // The database as `tidings serve` reads it (flags, then TIDINGS_DATABASE_URL), by the same code.
  const databaseFlags = (['db', 'postgres', 'mysql', 'schema'] as const).flatMap((flag) => (typeof values[flag] === 'string' ? [`--${flag}`, values[flag] as string] : []));
  let database: ServeOptions;
  try {
    const { db, postgres, mysql, schema } = readArguments(databaseFlags, env).options;
    database = { ...(db !== undefined && { db }), ...(postgres && { postgres }), ...(mysql && { mysql }), ...(schema && { schema }) };
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  return { action, dir, dryRun: values['dry-run'] === true, prune: values['prune'] === true, environmentId, database };
}

/** Every `*.json` file of the folder, parsed, in name order; a file that is not JSON stops it, named. */
async function readFolder(dir: string): Promise<{ file: string; workflow: unknown }[] | string> {
  let names: string[];
  try {
    names = (await readdir(dir, { withFileTypes: true })).filter((e) => e.isFile() && e.name.endsWith('.json')).map((e) => e.name).sort();
  } catch (error) {
    return `cannot read ${dir}: ${(error as Error).message}`;
  }
  const files: { file: string; workflow: unknown }[] = [];
  for (const file of names) {
    try {
      files.push({ file, workflow: JSON.parse(await readFile(join(dir, file), 'utf8')) as unknown });
    } catch (error) {
      return `${file}: not JSON: ${(error as Error).message}`;
    }
  }
  return files;
}

async function exportFolder(tidings: Tidings, dir: string, output: CommandOutput): Promise<number> {
  const files = await tidings.workflows.exportFiles();
  await mkdir(dir, { recursive: true });
  for (const { file, workflow } of files) await writeFile(join(dir, file), `${JSON.stringify(workflow, null, 2)}\n`);
  output.out(`Exported ${files.length} workflow${files.length === 1 ? '' : 's'} to ${dir}${files.length > 0 ? `: ${files.map((f) => f.file).join(', ')}` : ''}`);
  return 0;
}

async function applyFolder(tidings: Tidings, args: WorkflowsArguments, output: CommandOutput): Promise<number> {
  const files = await readFolder(args.dir);
  if (typeof files === 'string') {
    output.err(`Refused, nothing applied: ${files}`);
    return 1;
  }
  const input = { files, prune: args.prune, by: 'cli' };
  const result = args.dryRun ? await tidings.workflows.plan(input) : await tidings.workflows.apply(input);
  for (const line of result.lines) output.out(line);
  if (args.dryRun) output.out('Dry run: nothing was applied.');
  else output.out(result.applied ? 'Applied.' : 'Nothing to apply.');
  return 0;
}

/**
 * `tidings workflows export|apply`: returns the exit status. Bad input in a file is a refusal (1)
 * naming the file and the field, with nothing applied.
 */
export async function workflowsCommand(args: readonly string[], env: NodeJS.ProcessEnv = process.env, output: CommandOutput = CONSOLE): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    output.out(WORKFLOWS_HELP);
    return 0;
  }
  let parsed: WorkflowsArguments;
  try {
    parsed = readWorkflowsArguments(args, env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    output.err(`${error.message}\n${WORKFLOWS_HELP.split('\n').slice(0, 2).join('\n')}`);
    return 2;
  }
  let storage;
  try {
    storage = await openDatabase({ ...parsed.database, ...(parsed.environmentId && { environmentId: parsed.environmentId }) });
  } catch (error) {
    output.err(`Tidings could not open the database: ${(error as Error).message}`);
    return 1;
  }
  try {
    const tidings = createTidings({ storage, ...(parsed.environmentId && { environmentId: parsed.environmentId }) });
    return parsed.action === 'export' ? await exportFolder(tidings, parsed.dir, output) : await applyFolder(tidings, parsed, output);
  } catch (error) {
    if (!isTidingsError(error)) throw error;
    output.err(`Refused, nothing applied: ${error.message}`);
    for (const issue of error.issues) output.err(`  ${issue.path}: ${issue.message}`);
    return 1;
  } finally {
    await storage.close();
  }
}
