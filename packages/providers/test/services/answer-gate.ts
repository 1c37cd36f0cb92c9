import type { ServerResponse } from 'node:http';

/**
 * Holds a fake service's answers while the test says so: each request is handled at once, its
 * answer waits for `release`. `waiting` counts held requests whose client is still connected.
 */
export function answerGate() {
  let held: Promise<void> | null = null;
  const waiting = new Set<object>();
  return {
    /** Waits, when answers are held, until they are released or the client goes away. */
    async pass(res: ServerResponse): Promise<void> {
      if (!held) return;
      waiting.add(res);
      res.on('close', () => waiting.delete(res));
      await held;
      waiting.delete(res);
    },
    /** Holds every answer from now until the returned `release` is called (each request is handled at once). */
    holdAnswers(): () => void {
      let release!: () => void;
      held = new Promise<void>((resolve) => (release = resolve));
      return () => {
        held = null;
        release();
      };
    },
    /** Requests whose answer is held and whose client is still connected. */
    waiting: () => waiting.size,
  };
}
