/**
 * Group commit, as databases do for their logs: calls that arrive together share one transaction and
 * one commit instead of queueing one by one behind a single writer.
 *
 * A call `begin`s when it starts its own work (validation, reads) and then either `commit`s its input
 * or is `abandon`ed. The user's code a call runs (a payload check) runs `outside` the group: a group
 * never waits for it, so a slow or stuck check delays only its own call. A group is formed when the writer is free, on the next turn of the event loop
 * (setImmediate), so the calls made in the same turn join it: on SQLite, whose statements run without
 * yielding, those are the requests one poll of the sockets delivered. Before it commits, a group
 * waits for the calls that had begun by then to reach their commit (or give up), so calls started
 * together commit together whatever the timing of their reads; calls begun later go to the next group,
 * so a steady stream never holds a group back. A lone caller waits for one turn only.
 *
 * `commit` receives the members in arrival order and returns one result per member. Each member keeps
 * its own result; if the shared commit fails, every member of that group fails with its error
 * (nothing of the group is stored, as each member's own failed commit would leave it). A group takes
 * members until their `weight` reaches `maxWeight` (at least one member), which bounds how long one
 * transaction holds the writer.
 */
export interface GroupCommitOptions<I> {
  readonly weight: (input: I) => number;
  readonly maxWeight: number;
}

/** One call's place in the committer: `commit` once its work is ready, or `abandon` (either settles it). */
export interface GroupTicket<I, O> {
  commit(input: I): Promise<O>;
  abandon(): void;
  /** Runs `work` (the user's code) while no forming group waits for this call; it is awaited again after. */
  outside<T>(work: () => Promise<T>): Promise<T>;
}

interface Waiting<I, O> {
  readonly input: I;
  readonly resolve: (output: O) => void;
  readonly reject: (error: unknown) => void;
}

export function groupCommit<I, O>(commit: (inputs: readonly I[]) => Promise<readonly O[]>, options: GroupCommitOptions<I>): { begin(): GroupTicket<I, O> } {
  const queue: Waiting<I, O>[] = [];
  /** Calls begun and not yet committed or abandoned. */
  const working = new Set<object>();
  /** The calls a forming group waits for, and how to wake it. */
  let awaited: { calls: Set<object>; wake: () => void } | null = null;
  let flushing = false;

  function settle(call: object): void {
    working.delete(call);
    if (awaited?.calls.delete(call) && awaited.calls.size === 0) awaited.wake();
  }

  /** Waits for the calls working now to commit or give up. */
  async function callsBegunSoFar(): Promise<void> {
    if (working.size === 0) return;
    const calls = new Set(working);
    await new Promise<void>((wake) => (awaited = { calls, wake }));
    awaited = null;
  }

  function nextGroup(): Waiting<I, O>[] {
    let weight = 0;
    let taken = 0;
    while (taken < queue.length) {
      const next = options.weight(queue[taken]!.input);
      if (taken > 0 && weight + next > options.maxWeight) break;
      weight += next;
      taken++;
    }
    return queue.splice(0, taken);
  }

  async function flush(): Promise<void> {
    try {
      while (queue.length > 0) {
        await callsBegunSoFar();
        const group = nextGroup();
        try {
          const outputs = await commit(group.map((member) => member.input));
          group.forEach((member, i) => member.resolve(outputs[i]!));
        } catch (error) {
          for (const member of group) member.reject(error);
        }
      }
    } finally {
      flushing = false;
    }
  }

  return {
    begin() {
      const call = {};
      working.add(call);
      return {
        commit(input) {
          const answer = new Promise<O>((resolve, reject) => queue.push({ input, resolve, reject }));
          settle(call);
          if (!flushing) {
            flushing = true;
            setImmediate(() => void flush());
          }
          return answer;
        },
        abandon: () => settle(call),
        async outside(work) {
          settle(call);
          try {
            return await work();
          } finally {
            working.add(call);
          }
        },
      };
    },
  };
}
