import type { JobLane } from '@tidings/core/internal';
import type { SelectQueryBuilder } from 'kysely';
import type { Database } from './tables.js';

/** A lane given no kind at all: it claims nothing, and nothing of it comes due. */
export const laneTakesNothing = (lane: JobLane): boolean => lane.kinds !== undefined && lane.kinds.length === 0;

/** A select of jobs narrowed to a lane's kinds. */
export function inLane<Q extends SelectQueryBuilder<Database, 'tidings_jobs', object>>(query: Q, { kinds, exceptKinds }: JobLane): Q {
  let out = query;
  if (kinds !== undefined) out = out.where('kind', 'in', kinds.length > 0 ? [...kinds] : ['']) as Q;
  if (exceptKinds !== undefined && exceptKinds.length > 0) out = out.where('kind', 'not in', [...exceptKinds]) as Q;
  return out;
}
