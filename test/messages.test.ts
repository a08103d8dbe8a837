// The message table: which statuses take which message, what a refusal says, and the list the
// snapshot carries for front ends (plain functions, no Temporal).
import { describe, expect, it } from 'vitest';
import { acceptedNow, accepts, MESSAGE_NAMES, MESSAGE_ROWS, refusal, waitsForAnswer } from '../src/domain/messages';
import { RESEARCH_STATUSES, TERMINAL_STATUSES } from '../src/domain/names';
import { WAITS } from '../src/domain/steps';

describe('the message table', () => {
  it('gives every message its own route, command and tool, and every wait for a person is answered by one', () => {
    const rows = MESSAGE_NAMES.map((name) => MESSAGE_ROWS[name]);
    for (const edge of [(r: (typeof rows)[number]) => r.http.path, (r: (typeof rows)[number]) => r.http.operationId, (r: (typeof rows)[number]) => r.cli.command]) {
      expect(new Set(rows.map(edge)).size).toBe(rows.length);
    }
    expect(rows.flatMap((r) => (r.tool ? [r.tool.name] : [])).sort()).toEqual(['answer', 'approve', 'confirm', 'review']);
    for (const wait of Object.values(WAITS)) expect(acceptedNow(wait.status).length).toBeGreaterThan(0);
    // A wait with a form of its own is answered by its message; a budget wait only by a top-up.
    expect(acceptedNow('awaiting_topic')).toContain('provideTopic');
    expect(acceptedNow('awaiting_confirmation')).toContain('confirm');
    expect(acceptedNow('awaiting_budget')).toEqual(['guidance', 'topUp', 'cancel']);
  });

  it('takes nothing once a session has ended, or while it is being cancelled', () => {
    for (const status of TERMINAL_STATUSES) expect(acceptedNow(status)).toEqual([]);
    expect(acceptedNow('awaiting_approval', true)).toEqual([]);
  });

  it('says why a message is refused, in the words the clients have always shown', () => {
    expect(refusal('approve', 'r1', 'running')).toBe('research r1 is running, not awaiting approval');
    expect(refusal('approve', 'r1', 'awaiting_approval')).toBeUndefined();
    expect(refusal('cancel', 'r1', 'completed')).toBe('research r1 is already completed');
    expect(refusal('guidance', 'r1', 'awaiting_review')).toMatch(/waits for your review: send review feedback/);
    expect(refusal('continue', 'r1', 'running')).toBe('research r1 is running, not awaiting guidance');
  });

  it('tells a wait for an answer from a session that is only steered', () => {
    expect(waitsForAnswer(acceptedNow('awaiting_review'))).toBe(true);
    expect(waitsForAnswer(acceptedNow('awaiting_clarification'))).toBe(true);
    expect(waitsForAnswer(acceptedNow('awaiting_guidance'))).toBe(false);
    expect(waitsForAnswer(acceptedNow('awaiting_budget'))).toBe(false);
    expect(waitsForAnswer(acceptedNow('running'))).toBe(false);
    // Guidance is steering while research can still use it.
    expect(RESEARCH_STATUSES.filter((s) => accepts('guidance', s))).toEqual(['planning', 'awaiting_topic', 'awaiting_clarification', 'awaiting_approval', 'running', 'processing', 'synthesizing', 'awaiting_confirmation', 'awaiting_budget', 'awaiting_guidance']);
  });
});
