import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Tidings } from '@tidings/core';
import { folderKindOf, KIND_RULES, REVISIONED_KINDS, type FolderFile, type RevisionedKind } from '@tidings/core/internal';
import { CONSOLE, readDatabaseArguments, runOnDatabase, UsageError, type CommandOutput, type DatabaseArguments } from './database-command.js';

export const WORKFLOWS_HELP = [
  'Usage: tidings workflows export --dir <folder> [--env <id>] [database]',
  '       tidings workflows apply --dir <folder> [--dry-run] [--prune] [--env <id>] [database]',
  '',
  'Keeps stored workflows, layouts, partials and translation catalogs as files in a folder of your',
  'repository: export writes <identifier>.json per workflow, layouts/<identifier>.json and .html (or',
  '.mjml), partials/<identifier>.html and translations/<locale>.json (a tenant\'s in',
  'translations/<tenant>/); apply prints a plan (added, changed with a diff, removed with --prune) and',
  'applies it in one transaction, each change a new revision. Applying unchanged files does nothing.',
  'One bad file refuses the whole apply, naming the file and the field.',
  '',
  'Options:',
  '  --dir <folder>   The folder of files (apply reads the *.json in it and its layouts/, partials/ and',
  '                   translations/ folders).',
  '  --dry-run        apply: print the plan and change nothing.',
  '  --prune          apply: delete the stored workflows no file names, and the layouts, partials and',
  '                   catalogs no file names when the folder has their folder.',
  '  --env <id>       The environment to read or change, so the same files promote from one to the next.',
  '                   Environment: TIDINGS_ENVIRONMENT. Default: default',
  '  database         --db <file>, --postgres <url> or --mysql <url> (with --schema <name> for Postgres),',
  '                   else TIDINGS_DATABASE_URL, as for tidings serve. Default: .tidings/tidings.db',
  '',
  'Exit status: 0 done (or nothing to do), 1 refused or failed, 2 a mistake on the command line.',
].join('\n');

interface WorkflowsArguments extends DatabaseArguments {
  readonly action: 'export' | 'apply';
  readonly dir: string;
  readonly dryRun: boolean;
  readonly prune: boolean;
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
  return { action, dir, dryRun: values['dry-run'] === true, prune: values['prune'] === true, ...readDatabaseArguments(values, env) };
}

/** The folders that hold the kinds other than workflows, which are the folder's own `*.json`. */
const KIND_FOLDERS = REVISIONED_KINDS.filter((kind) => kind !== 'workflows');

/**
 * The files `apply` reads, as paths in the folder (`/` between folders) with their texts, in name
 * order: those `folderKindOf` knows, down to a tenant's catalogs; hidden files and others are left
 * alone. Also which kinds have a folder, which `--prune` prunes.
 */
async function readFolder(dir: string): Promise<{ files: FolderFile[]; kinds: RevisionedKind[] } | string> {
  const paths: string[] = [];
  const kinds: RevisionedKind[] = ['workflows'];
  async function walk(relative: string, depth: number): Promise<void> {
    const entries = await readdir(join(dir, relative), { withFileTypes: true });
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const path = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.isFile() && folderKindOf(path) !== null) paths.push(path);
      else if (entry.isDirectory() && depth < 2 && (relative !== '' || (KIND_FOLDERS as readonly string[]).includes(entry.name))) {
        if (relative === '') kinds.push(entry.name as RevisionedKind);
        await walk(path, depth + 1);
      }
    }
  }
  try {
    await walk('', 0);
  } catch (error) {
    return `cannot read ${dir}: ${(error as Error).message}`;
  }
  paths.sort();
  return { files: await Promise.all(paths.map(async (file) => ({ file, text: await readFile(join(dir, ...file.split('/')), 'utf8') }))), kinds };
}

/** How many of each kind files hold (a layout's two files count once): `1 workflow, 2 layouts`. */
function counted(files: readonly FolderFile[]): string {
  const parts = REVISIONED_KINDS.flatMap((kind) => {
    const n = new Set(files.filter((f) => folderKindOf(f.file) === kind).map((f) => f.file.replace(/\.[^./]+$/, ''))).size;
    return n > 0 || kind === 'workflows' ? [`${n} ${KIND_RULES[kind].noun[n === 1 ? 0 : 1]}`] : [];
  });
  return parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)!}` : parts[0]!;
}

async function exportFolder(tidings: Tidings, dir: string, output: CommandOutput): Promise<number> {
  const files = await tidings.workflows.exportFiles();
  for (const { file, text } of files) {
    const path = join(dir, ...file.split('/'));
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, text);
  }
  await mkdir(dir, { recursive: true });
  output.out(`Exported ${counted(files)} to ${dir}${files.length > 0 ? `: ${files.map((f) => f.file).join(', ')}` : ''}`);
  return 0;
}

async function applyFolder(tidings: Tidings, args: WorkflowsArguments, output: CommandOutput): Promise<number> {
  const folder = await readFolder(args.dir);
  if (typeof folder === 'string') {
    output.err(`Refused, nothing applied: ${folder}`);
    return 1;
  }
  // --prune prunes the workflows, and each other kind whose folder is there (an empty one too).
  const input = { files: folder.files, prune: args.prune ? folder.kinds : false, by: 'cli' };
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
export function workflowsCommand(args: readonly string[], env: NodeJS.ProcessEnv = process.env, output: CommandOutput = CONSOLE): Promise<number> {
  return runOnDatabase(
    { help: WORKFLOWS_HELP, usageLines: 2, read: readWorkflowsArguments, refused: 'nothing applied', run: (tidings, parsed) => (parsed.action === 'export' ? exportFolder(tidings, parsed.dir, output) : applyFolder(tidings, parsed, output)) },
    args,
    env,
    output,
  );
}
