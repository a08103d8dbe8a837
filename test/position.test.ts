// The session's position and what every front end shows of it: one pure derivation (the table in
// src/domain/position.ts), parallel branches that cannot overwrite one another's progress, where a
// resumed session goes on from, and the rule that one file moves the position.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RESEARCH_PHASES, RESEARCH_STATUSES } from '../src/domain/names';
import { describe as describePosition, LOOP_PHASES, loopProgress, OUTCOMES, type Place, placeAfterStop, type Position, startingPlace } from '../src/domain/position';
import { WAITS, type WaitKind } from '../src/domain/steps';

const PLACES: Place[] = [
  { at: 'topic' },
  { at: 'plan' },
  ...LOOP_PHASES.map((phase) => ({ at: 'research' as const, phase })),
  { at: 'panel', part: 'answers' },
  { at: 'panel', part: 'synthesis' },
  { at: 'verify' },
  { at: 'review' },
];
const WAIT_KINDS = Object.keys(WAITS) as WaitKind[];
const wait = (kind: WaitKind) => ({ for: kind, since: '2026-11-27T20:00:00.000Z' });

describe('describe: status and phase from the position', () => {
  it('gives every place its status and phase, as the front ends have always shown them', () => {
    const shown = PLACES.map((p) => [p.at === 'research' ? `research(${p.phase})` : p.at === 'panel' ? `panel(${p.part})` : p.at, describePosition(p).status, describePosition(p).phase]);
    expect(shown).toEqual([
      ['topic', 'awaiting_topic', 'planning'],
      ['plan', 'planning', 'planning'],
      ['research(GATHERING)', 'running', 'searching'],
      ['research(ANALYSIS)', 'running', 'analyzing'],
      ['research(REFINEMENT)', 'running', 'analyzing'],
      ['research(SYNTHESIS)', 'running', 'updating_report'],
      ['research(COMPLETED)', 'running', 'updating_report'],
      ['panel(answers)', 'processing', 'panel_answers'],
      ['panel(synthesis)', 'synthesizing', 'synthesizing'],
      ['verify', 'verifying', 'verifying'],
      ['review', 'verifying', 'verifying'],
    ]);
  });

  it('shows a wait as the wait, in the place it waits in, and an end as its outcome', () => {
    for (const place of PLACES) {
      for (const kind of WAIT_KINDS) {
        const shown = describePosition({ at: 'waiting', wait: wait(kind), in: place });
        expect(shown.status).toBe(WAITS[kind].status);
        // A wait with a phase of its own shows it; a budget or guidance wait shows where research stopped.
        expect(shown.phase).toBe(WAITS[kind].phase ?? describePosition(place).phase);
        expect(shown).toMatchObject({ waiting_for: kind, step: describePosition(place).step });
      }
      for (const outcome of OUTCOMES) expect(describePosition({ at: 'ended', outcome, in: place })).toMatchObject({ status: outcome, phase: 'done', step: describePosition(place).step });
    }
  });

  it('only ever shows the statuses and phases the API names', () => {
    const positions: Position[] = [...PLACES, ...PLACES.flatMap((p) => WAIT_KINDS.map((k) => ({ at: 'waiting' as const, wait: wait(k), in: p }))), ...PLACES.flatMap((p) => OUTCOMES.map((o) => ({ at: 'ended' as const, outcome: o, in: p })))];
    const statuses = new Set(positions.map((p) => describePosition(p).status));
    const phases = new Set(positions.map((p) => describePosition(p).phase));
    for (const status of statuses) expect(RESEARCH_STATUSES).toContain(status);
    for (const phase of phases) expect(RESEARCH_PHASES).toContain(phase);
    // Every status a session can be in is reachable from some position.
    expect([...statuses].sort()).toEqual([...RESEARCH_STATUSES].sort());
  });

  it('shows the slowest branch while gathering: parallel branches never overwrite one another', () => {
    const gathering: Place = { at: 'research', phase: 'GATHERING' };
    expect(describePosition(gathering, ['analyzing', 'searching', 'fetching']).phase).toBe('searching');
    // Whichever branch wrote last, the phase is the same.
    expect(describePosition(gathering, ['fetching', 'analyzing']).phase).toBe('fetching');
    expect(describePosition(gathering, ['analyzing', 'fetching']).phase).toBe('fetching');
    expect(describePosition(gathering, ['done', 'analyzing', 'done']).phase).toBe('analyzing');
    // Every branch done: the round's analyses are joining.
    expect(describePosition(gathering, ['done', 'done']).phase).toBe('analyzing');
    // A budget wait mid-round shows what the round was doing.
    expect(describePosition({ at: 'waiting', wait: wait('budget'), in: gathering }, ['fetching', 'done'])).toMatchObject({ status: 'awaiting_budget', phase: 'fetching' });
  });
});

describe('where a session starts and goes on from', () => {
  it("names the research loop's progress as the supervisor's line always did", () => {
    expect(PLACES.map((p) => loopProgress(p))).toEqual(['PLANNING', 'PLANNING', ...LOOP_PHASES, 'COMPLETED', 'COMPLETED', 'COMPLETED', 'COMPLETED']);
    expect(loopProgress({ at: 'ended', outcome: 'completed', in: { at: 'review' } })).toBe('COMPLETED');
    expect(loopProgress({ at: 'waiting', wait: wait('guidance'), in: { at: 'research', phase: 'ANALYSIS' } })).toBe('ANALYSIS');
  });

  it('starts by asking for its question or by planning', () => {
    expect(startingPlace('  ')).toEqual({ at: 'topic' });
    expect(startingPlace('tidal energy')).toEqual({ at: 'plan' });
  });

  it('goes on from a stop where it stopped before approval, else in research (synthesis once research was done)', () => {
    const ended = (place: Place): Position => ({ at: 'ended', outcome: 'cancelled', in: place });
    expect(placeAfterStop(ended({ at: 'plan' }))).toEqual({ at: 'plan' });
    expect(placeAfterStop(ended({ at: 'topic' }))).toEqual({ at: 'topic' });
    expect(placeAfterStop(ended({ at: 'research', phase: 'ANALYSIS' }))).toEqual({ at: 'research', phase: 'ANALYSIS' });
    for (const place of [{ at: 'research', phase: 'COMPLETED' }, { at: 'panel', part: 'synthesis' }, { at: 'verify' }, { at: 'review' }] as Place[]) {
      expect(placeAfterStop(ended(place))).toEqual({ at: 'research', phase: 'SYNTHESIS' });
    }
    // A session stopped while it waited goes on from the place it waited in.
    expect(placeAfterStop({ at: 'waiting', wait: wait('approval'), in: { at: 'plan' } })).toEqual({ at: 'plan' });
  });
});

describe('one writer', () => {
  const files = (dir: string): string[] => readdirSync(dir).flatMap((name) => (statSync(path.join(dir, name)).isDirectory() ? files(path.join(dir, name)) : name.endsWith('.ts') ? [path.join(dir, name)] : []));
  const workflowFiles = files(path.join(__dirname, '..', 'src', 'workflows'));
  const rel = (file: string) => path.relative(path.join(__dirname, '..'), file);

  it('moves the position only in deep-research.ts, through the session', () => {
    const movers = workflowFiles.filter((f) => /\.moveTo\(/.test(readFileSync(f, 'utf8'))).map(rel);
    expect(movers).toEqual(['src/workflows/deep-research.ts']);
    const writers = workflowFiles.filter((f) => /\.position\s*=[^=]/.test(readFileSync(f, 'utf8'))).map(rel);
    expect(writers).toEqual(['src/workflows/session.ts']);
  });

  it('keeps no status or phase of its own anywhere in the workflow', () => {
    for (const file of workflowFiles) expect(readFileSync(file, 'utf8'), rel(file)).not.toMatch(/state\.(status|phase|step|waiting)\b\s*=[^=]|setStatus|setPhase|mind\.phase\b(?!_)/);
  });
});
