import { CompiledQuery, type Compilable, type QueryResult } from 'kysely';
import type { Db, SqlDialect } from './dialect.js';

type Args = Record<string, unknown>;
type Slot = { readonly arg: string; readonly index: number } | { readonly constant: unknown };

const MARK = '\u0001tidings-arg:';
const MARKED = /^\u0001tidings-arg:(.+):(-?\d+)$/;

/**
 * A statement Kysely builds and compiles once per dialect, schema and list lengths, then runs with new values.
 * The hot statements (a batch's subscribers, notifications, job completions, inserts of hundreds of
 * rows) run thousands of times a second, and building the same query tree each time cost more than
 * the database spent running it. `build` receives marker values in place of `args` (arrays keep their
 * length); each marker's place among the compiled parameters says where the real value goes. So
 * `build` must shape the statement from the arguments' lengths only, never from their values.
 */
export function reusableQuery<A extends Args>(build: (db: Db, args: A, dialect: SqlDialect) => Compilable) {
  const templates = new Map<string, { sql: string; slots: Slot[] }>();
  return async <R>(db: Db, dialect: SqlDialect, args: A): Promise<QueryResult<R>> => {
    let key = dialect.schema === undefined ? dialect.name : `${dialect.name}.${dialect.schema}`;
    for (const name in args) {
      const value = args[name];
      if (Array.isArray(value)) key += `|${name}:${value.length}`;
    }
    let template = templates.get(key);
    if (!template) {
      const marked: Args = {};
      for (const name in args) {
        const value = args[name];
        marked[name] = Array.isArray(value) ? value.map((_, i) => `${MARK}${name}:${i}`) : `${MARK}${name}:-1`;
      }
      const compiled = build(db, marked as A, dialect).compile();
      const slots = compiled.parameters.map((parameter): Slot => {
        const match = typeof parameter === 'string' ? MARKED.exec(parameter) : null;
        return match ? { arg: match[1]!, index: Number(match[2]) } : { constant: parameter };
      });
      template = { sql: compiled.sql, slots };
      templates.set(key, template);
    }
    const values = template.slots.map((slot) => ('constant' in slot ? slot.constant : slot.index < 0 ? args[slot.arg] : (args[slot.arg] as readonly unknown[])[slot.index]));
    return db.executeQuery<R>(CompiledQuery.raw(template.sql, values));
  };
}
