import type { MessageFilter } from '@tidings/core';
import { sql, type ExpressionBuilder, type Expression, type SqlBool } from 'kysely';
import { bit } from './codec.js';
import type { SqlDialect } from './dialect.js';
import type { Database } from './tables.js';

type Eb = ExpressionBuilder<Database, 'tidings_messages'>;

/** Not expired at `now`: no `expires_at`, or one still to come. */
export const unexpired = (eb: Eb, now: string) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]);

/**
 * `tags like '%,tag,%'`, with LIKE's wildcards in the tag escaped. The escape character is `!`, which
 * every dialect's string literals write the same way (a backslash is an escape in MySQL's).
 */
const tagged = (tag: string) => sql<SqlBool>`tags like ${`%,${tag.replace(/[!%_]/g, (ch) => `!${ch}`)},%`} escape '!'`;

/**
 * The filter as one SQL condition on `tidings_messages` (one subscriber's rows), the translation of
 * core's `messageMatches`.
 */
export function messageCondition(eb: Eb, filter: MessageFilter, dialect: SqlDialect): Expression<SqlBool> {
  const all: Expression<SqlBool>[] = [unexpired(eb, filter.now)];
  if (filter.channel !== undefined) all.push(eb('channel', '=', filter.channel));
  if (filter.read !== undefined) all.push(eb('read', '=', bit(filter.read)));
  if (filter.seen !== undefined) all.push(eb('seen', '=', bit(filter.seen)));
  if (filter.archived !== undefined) all.push(eb('archived', '=', bit(filter.archived)));
  if (filter.snoozed === true) all.push(eb('snoozed_until', '>', filter.now));
  if (filter.snoozed === false) all.push(eb.or([eb('snoozed_until', 'is', null), eb('snoozed_until', '<=', filter.now)]));
  for (const group of filter.tags ?? []) all.push(group.length === 0 ? sql<SqlBool>`1 = 0` : eb.or(group.map(tagged)));
  if (filter.severity !== undefined) all.push(filter.severity.length === 0 ? sql<SqlBool>`1 = 0` : eb('severity', 'in', [...filter.severity]));
  for (const [key, value] of Object.entries(filter.data ?? {})) all.push(dialect.docMemberEquals(['data', key], JSON.stringify(value)) as Expression<SqlBool>);
  if (filter.context !== undefined) all.push(eb('context_key', '=', filter.context));
  if (filter.createdGte !== undefined) all.push(eb('created_at', '>=', filter.createdGte));
  if (filter.createdLte !== undefined) all.push(eb('created_at', '<=', filter.createdLte));
  return eb.and(all);
}
