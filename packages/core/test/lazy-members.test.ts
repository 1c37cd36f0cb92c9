import { describe, expect, it } from 'vitest';
import { lazyMembers } from '../src/util/lazy-members.js';

describe('lazyMembers', () => {
  it('makes each member on its first read only, and keeps it', () => {
    const made: string[] = [];
    const repos = lazyMembers<{ jobs: { name: string }; messages: { name: string } }>({
      jobs: () => (made.push('jobs'), { name: 'jobs' }),
      messages: () => (made.push('messages'), { name: 'messages' }),
    });
    expect(made).toEqual([]);
    const first = repos.jobs;
    expect(repos.jobs).toBe(first);
    expect(made).toEqual(['jobs']);
  });

  it('keeps the members of each object apart', () => {
    const a = lazyMembers<{ n: number }>({ n: () => 1 });
    const b = lazyMembers<{ n: number }>({ n: () => 2 });
    expect([a.n, b.n, a.n]).toEqual([1, 2, 1]);
  });

  it('has the members as its own enumerable keys, so a spread reads them all', () => {
    const repos = lazyMembers<{ x: number; y: string }>({ x: () => 1, y: () => 'y' });
    expect(Object.keys(repos)).toEqual(['x', 'y']);
    expect({ ...repos }).toEqual({ x: 1, y: 'y' });
  });

  it('gives every object the same getter per member (one hidden class for all: a getter made per object kept each transaction alive through young collections)', () => {
    const a = lazyMembers<{ n: number }>({ n: () => 1 });
    const b = lazyMembers<{ n: number }>({ n: () => 2 });
    void a.n;
    expect(Object.getOwnPropertyDescriptor(a, 'n')?.get).toBeTypeOf('function');
    expect(Object.getOwnPropertyDescriptor(a, 'n')?.get).toBe(Object.getOwnPropertyDescriptor(b, 'n')?.get);
  });

  it('makes a member that a maker returns undefined for only once', () => {
    let calls = 0;
    const repos = lazyMembers<{ nothing: undefined }>({ nothing: () => void calls++ });
    expect([repos.nothing, repos.nothing]).toEqual([undefined, undefined]);
    expect(calls).toBe(1);
  });
});
