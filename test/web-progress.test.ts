// The session view's progress line: a full bar only for a finished answer; a session that stopped
// early says how far it got.
import { describe, expect, it } from 'vitest';
import { progressOf, stoppedSummary } from '../src/web/panels';

const session = (status: string, fetched: number, failed: number, findings: number) => ({
  status,
  phase: 'done',
  iteration: 2,
  settings: { max_iterations: 3 },
  sources: [...Array(fetched).fill({ status: 'fetched' }), ...Array(failed).fill({ status: 'failed' })],
  findings: Array(findings).fill({}),
});

describe('progress of a session', () => {
  it('a completed session is at 100 % and has no stop line', () => {
    expect(progressOf(session('completed', 4, 0, 3))).toBe(100);
    expect(stoppedSummary(session('completed', 4, 0, 3))).toBeUndefined();
  });

  it('a session that stopped early says where, instead of a full bar', () => {
    expect(stoppedSummary(session('timed_out', 4, 2, 5))).toBe('Stopped (timed out) in iteration 2 of 3: 4 of 6 sources read, 5 findings.');
    expect(stoppedSummary(session('failed', 1, 0, 1))).toBe('Stopped (failed) in iteration 2 of 3: 1 of 1 sources read, 1 finding.');
    expect(stoppedSummary(session('cancelled', 0, 0, 0))).toBe('Stopped (cancelled) before any source was read.');
    expect(stoppedSummary(session('rejected', 0, 0, 0))).toBe('Plan rejected: no research ran.');
  });

  it('a running session is between the plan and the end', () => {
    const running = { ...session('running', 2, 0, 1), phase: 'analyzing' };
    expect(progressOf(running)).toBeGreaterThan(10);
    expect(progressOf(running)).toBeLessThan(90);
    expect(stoppedSummary(running)).toBeUndefined();
  });
});
