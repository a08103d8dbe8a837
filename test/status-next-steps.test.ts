// `status` says what a waiting session waits for and the command that moves it on, for every waiting
// state: the plan, how to approve it and when the session expires; the top-up a spent budget needs;
// the guidance or the review asked for. Read from sessions as recorded builds stored them.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nextSteps, whenLine } from '../src/cli/next-steps';
import { migrateState } from '../src/domain/migrations';
import { describe as describePosition, waitOf } from '../src/domain/position';
import type { ResearchSnapshot } from '../src/domain/types';

const recorded = (name: string): ResearchSnapshot => {
  const raw = JSON.parse(readFileSync(path.join(__dirname, 'fixtures', 'state-versions', `${name}.json`), 'utf8')) as ResearchSnapshot;
  const state = migrateState(raw);
  const { status, phase } = describePosition(state.position);
  return { ...state, status, phase, report_markdown: raw.report_markdown, last_event_seq: raw.last_event_seq };
};

describe('the next step status names', () => {
  it('awaiting approval: the plan, the commands to approve, revise or reject, and when the session expires', () => {
    const s = recorded('v10-awaiting-approval');
    const until = waitOf(s.position)?.until as number;
    const lines = nextSteps(s, until - (6 * 24 + 23) * 3600_000);
    const text = lines.join('\n');
    expect(text).toContain('  Research plan');
    for (const q of s.plan?.expanded_queries ?? []) expect(text).toContain(q.query);
    expect(lines).toContain(`  deep-research approve ${s.research_id}    (an edited plan: --plan plan.json)`);
    expect(lines).toContain(`  deep-research revise ${s.research_id} "<what to change>"`);
    expect(lines).toContain(`  deep-research reject ${s.research_id}`);
    expect(lines.at(-1)).toBe(`  the session expires unless the plan is approved by ${new Date(until).toISOString().slice(0, 16).replace('T', ' ')} UTC (in 6 d 23 h)`);
  });

  it('awaiting budget: which limit is spent and the top-up that lets it go on', () => {
    const s = recorded('v10-awaiting-budget');
    const lines = nextSteps(s);
    expect(lines[0]).toBe(`next: the budget is spent (fetches ${s.usage.fetch_calls} of 4): raise it and the session goes on, or cancel it (the report so far is kept):`);
    expect(lines).toContain(`  deep-research top-up ${s.research_id} --fetches 4`);
    expect(lines).toContain(`  deep-research cancel ${s.research_id}`);
  });

  it('awaiting guidance and awaiting review: the command each waits for', () => {
    const guidance = recorded('v10-awaiting-guidance');
    expect(nextSteps(guidance)).toEqual(expect.arrayContaining([`  deep-research guide ${guidance.research_id} "<what to look at next>"`, `  deep-research continue ${guidance.research_id}    (go on without)`]));
    const review = recorded('v10-awaiting-review');
    expect(nextSteps(review)).toEqual(expect.arrayContaining([`  deep-research review ${review.research_id} accept | reject | feedback "<what to change>"`]));
    expect(nextSteps(review)[0]).toContain(`deep-research report ${review.research_id}`);
  });

  it('every other waiting state names its command; an ended session what can be done with it; a working one nothing', () => {
    const base = recorded('v10-awaiting-approval');
    const id = base.research_id;
    expect(nextSteps({ ...base, status: 'awaiting_topic' })).toContain(`  deep-research topic ${id} "<question>"`);
    expect(nextSteps({ ...base, status: 'awaiting_clarification' })[0]).toBe(`next: answer the questions above, or end the session: deep-research reject ${id}`);
    expect(nextSteps({ ...base, status: 'awaiting_confirmation' })[0]).toContain(`deep-research confirm ${id} proceed`);
    expect(nextSteps({ ...base, status: 'failed' })).toEqual([`next: run it again from where it failed: deep-research retry ${id}`]);
    // A failure a retry cannot get past says what to change first.
    const refused = 'planner model call (openai:gemma3-270m): the server at 127.0.0.1:8850 refuses response_format json_schema for gemma3-270m ("…") — to fix: set models.structured_output (or MODEL_STRUCTURED_OUTPUT) to auto, so the other ways of asking for JSON are tried';
    expect(nextSteps({ ...base, status: 'failed', reason: refused })).toEqual([
      `next: set models.structured_output (or MODEL_STRUCTURED_OUTPUT) to auto, so the other ways of asking for JSON are tried first; then go on from where it failed: deep-research retry ${id}`,
    ]);
    expect(nextSteps({ ...base, status: 'timed_out' })[0]).toContain(`deep-research resume ${id} (--timeout <seconds> for more time)`);
    expect(nextSteps(recorded('v10-researching'))).toEqual([]);
  });

  it('says how long is left in days, hours or minutes', () => {
    const at = Date.parse('2026-12-04T10:00:00Z');
    expect(whenLine(at, at - 90 * 60_000)).toBe('2026-12-04 10:00 UTC (in 1 h 30 min)');
    expect(whenLine(at, at - 5 * 60_000)).toBe('2026-12-04 10:00 UTC (in 5 min)');
    expect(whenLine(at, at + 1)).toBe('2026-12-04 10:00 UTC (now)');
  });
});
