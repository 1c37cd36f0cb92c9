/** One queued job: its id and the `runAt` it had when queued (the entry is stale once that changes). */
export interface QueueEntry {
  readonly runAt: string;
  readonly id: string;
}

const before = (a: QueueEntry, b: QueueEntry) => a.runAt < b.runAt || (a.runAt === b.runAt && a.id < b.id);

/**
 * A binary min-heap of jobs by (runAt, id): the memory store's index for claims, so a claim reads the
 * earliest jobs instead of scanning and sorting every job (which made a large fan-out quadratic).
 * Entries are never updated in place: a job whose `runAt` changes is pushed again, and entries that
 * no longer match their job are dropped when they reach the top.
 */
export class JobQueue {
  private heap: QueueEntry[] = [];

  get size(): number {
    return this.heap.length;
  }

  peek(): QueueEntry | undefined {
    return this.heap[0];
  }

  push(entry: QueueEntry): void {
    const heap = this.heap;
    heap.push(entry);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  pop(): QueueEntry | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    if (heap.length === 0 || last === undefined) return top;
    heap[0] = last;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < heap.length && before(heap[left]!, heap[smallest]!)) smallest = left;
      if (right < heap.length && before(heap[right]!, heap[smallest]!)) smallest = right;
      if (smallest === i) return top;
      [heap[i], heap[smallest]] = [heap[smallest]!, heap[i]!];
      i = smallest;
    }
  }

  /** Replaces the whole queue (after a rolled-back transaction, from the restored jobs). */
  reset(entries: Iterable<QueueEntry>): void {
    this.heap = [];
    for (const entry of entries) this.push(entry);
  }
}
