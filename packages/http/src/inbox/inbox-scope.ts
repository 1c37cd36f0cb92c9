import type { Context } from 'hono';
import type { AppEnv } from '../context.js';
import { HttpError } from '../errors.js';

/** Everything an Inbox handler needs: the session's engine and its subscriber, who must still exist. */
export async function scope(c: Context<AppEnv>) {
  const session = c.get('inbox');
  if (!session) throw new HttpError(401, 'Missing the inbox session token (Authorization: Bearer <token>)');
  const { environment, subscriberId, context } = session;
  const tidings = environment.tidings;
  const subscriber = await tidings.subscribers.get(subscriberId);
  if (!subscriber) throw new HttpError(401, 'The subscriber of this session no longer exists: open a new one');
  return { tidings, subscriber, subscriberId, context };
}
