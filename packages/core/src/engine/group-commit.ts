/**
 * Group commit, as databases do for their logs: calls that arrive while a commit is in flight wait
 * and then go together into the next one, so N concurrent calls cost one transaction and one commit
 * instead of N queued behind a single writer. A call that finds nothing in flight starts at once, so
 * a lone caller waits for nothing.
 *
 * `commit` receives the members in arrival order and returns one result per member. Each member
 * keeps its own result; if the shared commit fails, every member of that group fails with its error
 * (nothing of the group is stored, exactly as each member's own failed commit would leave it).
 * A group takes members until their `weight` reaches `maxWeight` (at least one member), which bounds
 * how long one transaction holds the writer.
 */
export interface GroupCommitOptions<I> {
  readonly weight: (input: I) => number;
  readonly maxWeight: number;
}

interface Waiting<I, O> {
  readonly input: I;
  readonly resolve: (output: O) => void;
  readonly reject: (error: unknown) => void;
}

export function groupCommit<I, O>(commit: (inputs: readonly I[]) => Promise<readonly O[]>, options: GroupCommitOptions<I>): (input: I) => Promise<O> {
  const queue: Waiting<I, O>[] = [];
  let flushing = false;

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
    flushing = true;
    try {
      while (queue.length > 0) {
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

  return (input) =>
    new Promise<O>((resolve, reject) => {
      queue.push({ input, resolve, reject });
      if (!flushing) void flush();
    });
}
