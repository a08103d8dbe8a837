// `research` follows a session a line a second and learns of its end from the workflow's result.
// The second's wait must not outlive the end: a timer left running keeps the command alive (up to
// a second) after it printed the report, which a person at the terminal waits through.
import { describe, expect, it } from 'vitest';
import { endedWithin } from '../src/cli/terminal';

const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

describe('following progress to the end', () => {
  it('an end that comes first leaves no timer behind', async () => {
    const before = timers();
    expect(await endedWithin(Promise.resolve(true), 60_000)).toBe(true);
    expect(timers()).toBe(before);
  });

  it('a second that passes first says the session is still running, and the end is learnt on a later tick', async () => {
    const before = timers();
    let end!: (v: boolean) => void;
    const ended = new Promise<boolean>((r) => (end = r));
    expect(await endedWithin(ended, 20)).toBe(false);
    end(true);
    expect(await endedWithin(ended, 60_000)).toBe(true);
    expect(timers()).toBe(before);
  });
});
