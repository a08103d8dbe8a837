// The statuses a list (and a refusal naming a session's status) reads from the engine: one read per
// session at a time however many callers ask, and a caller waits only so long for it.
import { describe, expect, it } from 'vitest';
import { StatusRefresh } from '../src/server/status-refresh';

describe('statuses read from the engine', () => {
  it('reads once per session for every caller meanwhile, and a caller waits at most its time', async () => {
    const asked: string[] = [];
    let answer: (status: string) => void = () => undefined;
    const statuses = new StatusRefresh((id) => {
      asked.push(id);
      return new Promise<string>((resolve) => (answer = resolve));
    });
    const since = Date.now();
    const [a, b] = await Promise.all([statuses.statusWithin('s1', 200), statuses.statusWithin('s1', 200), statuses.within(['s1'], 200)]);
    expect(Date.now() - since).toBeLessThan(1_000);
    expect({ a, b, asked }).toEqual({ a: undefined, b: undefined, asked: ['s1'] });
    // The read goes on: the next caller gets its answer, and a new read starts only after it.
    const later = statuses.status('s1');
    answer('running');
    expect(await later).toBe('running');
    expect(asked).toEqual(['s1']);
    const next = statuses.statusWithin('s1', 200);
    answer('completed');
    expect(await next).toBe('completed');
    expect(asked).toEqual(['s1', 's1']);
  });
});
