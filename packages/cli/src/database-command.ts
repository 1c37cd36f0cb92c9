import { createTidings, isTidingsError, type Tidings } from '@tidings/core';
import { readArguments } from './cli.js';
import { openDatabase, type ServeOptions } from './serve.js';

/** Where a command writes what it says. */
export interface CommandOutput {
  out(line: string): void;
  err(line: string): void;
}

export const CONSOLE: CommandOutput = { out: (line) => console.log(line), err: (line) => console.error(line) };

/** A mistake on the command line: the command prints it with its usage and exits 2. */
export class UsageError extends Error {}

/** What every command on the database reads from its arguments, besides its own. */
export interface DatabaseArguments {
  readonly environmentId: string | undefined;
  readonly database: ServeOptions;
}

/**
 * The environment (`--env`, else TIDINGS_ENVIRONMENT) and the database as `tidings serve` reads them
 * (`--db`, `--postgres`, `--mysql`, `--schema`, then TIDINGS_DATABASE_URL), by the same code.
 */
export function readDatabaseArguments(values: Readonly<Record<string, string | boolean | undefined>>, env: NodeJS.ProcessEnv): DatabaseArguments {
  const given = (flag: string) => (typeof values[flag] === 'string' ? (values[flag] as string) : undefined);
  const environmentId = (given('env') ?? env['TIDINGS_ENVIRONMENT'])?.trim() || undefined;
  const databaseFlags = (['db', 'postgres', 'mysql', 'schema'] as const).flatMap((flag) => (given(flag) !== undefined ? [`--${flag}`, given(flag)!] : []));
  try {
    const { db, postgres, mysql, schema } = readArguments(databaseFlags, env).options;
    return { environmentId, database: { ...(db !== undefined && { db }), ...(postgres && { postgres }), ...(mysql && { mysql }), ...(schema && { schema }) } };
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** A command that works on the database `tidings serve` uses (`tidings workflows`, `tidings keys`). */
export interface DatabaseCommand<A extends DatabaseArguments> {
  readonly help: string;
  /** Lines of `help` printed after a usage mistake. */
  readonly usageLines: number;
  read(args: readonly string[], env: NodeJS.ProcessEnv): A;
  run(tidings: Tidings, parsed: A): Promise<number>;
  /** What a refusal says nothing of (`nothing applied`, `nothing changed`). */
  readonly refused: string;
}

/**
 * Runs a command on the database: `--help` (0), a usage mistake with the usage (2), a database that
 * does not open (1), a refusal naming each field (1); otherwise the command's own status. The
 * storage is closed whatever happens.
 */
export async function runOnDatabase<A extends DatabaseArguments>(command: DatabaseCommand<A>, args: readonly string[], env: NodeJS.ProcessEnv, output: CommandOutput): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    output.out(command.help);
    return 0;
  }
  let parsed: A;
  try {
    parsed = command.read(args, env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    output.err(`${error.message}\n${command.help.split('\n').slice(0, command.usageLines).join('\n')}`);
    return 2;
  }
  const environment = parsed.environmentId ? { environmentId: parsed.environmentId } : {};
  let storage;
  try {
    storage = await openDatabase({ ...parsed.database, ...environment });
  } catch (error) {
    output.err(`Tidings could not open the database: ${(error as Error).message}`);
    return 1;
  }
  try {
    return await command.run(createTidings({ storage, ...environment }), parsed);
  } catch (error) {
    if (!isTidingsError(error)) throw error;
    output.err(`Refused, ${command.refused}: ${error.message}`);
    for (const issue of error.issues) output.err(`  ${issue.path}: ${issue.message}`);
    return 1;
  } finally {
    await storage.close();
  }
}
