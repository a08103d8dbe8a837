// Every state version ever recorded (v1–v8, snapshots taken from the histories those builds wrote;
// v9, snapshots of a cancelled and a completed session as that build's session store kept them;
// v10, live snapshots of sessions waiting for approval, review, guidance and a top-up, and of one
// mid-research; v11, the same sessions as the v11 build kept them)
// is upgraded by plain migration functions, and a session going on from one completes on today's
// build: a snapshot waiting for approval waits again and researches once approved, one caught mid-
// research finishes its research. No branch in the workflow knows the old versions.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { continuationState } from '../src/client/session-ops';
import { migrateState, STATE_VERSION, stateVersionOf } from '../src/domain/migrations';
import { isWaiting } from '../src/domain/names';
import { describe as describePosition, LOOP_PHASES, placeOf } from '../src/domain/position';
import { researchSettingsSchema } from '../src/domain/settings';
import type { ResearchSnapshot } from '../src/domain/types';
import { startEnvironment, startHarness, waitFor, type Harness, type TestEnvironment } from './harness';

const dir = path.join(__dirname, 'fixtures', 'state-versions');
const fixtures = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((file) => ({ file, version: Number(/^v(\d+)-/.exec(file)?.[1]), raw: JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as Record<string, unknown> }));

const LOOP_FLAGS = ['supervised', 'parallel_branches', 'lean_oversight', 'pipelined', 'local_bookkeeping', 'read_input_contexts'];

describe('state migrations', () => {
  it('has a snapshot of every recorded version', () => {
    expect([...new Set(fixtures.map((f) => f.version))].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });

  it.each(fixtures.map((f) => [f.file, f] as const))('%s is told apart and upgraded to today\'s shape', (_file, { version, raw }) => {
    // A v2 state before any analysis has v1's shape (v2 only added token-budget records): read as v1.
    expect(stateVersionOf(raw)).toBe(version === 2 && raw.status !== 'running' ? 1 : version);
    const before = JSON.stringify(raw);
    const state = migrateState(raw);
    // The input is left as it was: migrations copy.
    expect(JSON.stringify(raw)).toBe(before);
    expect(state.state_version).toBe(STATE_VERSION);
    for (const flag of LOOP_FLAGS) expect(state).not.toHaveProperty(flag);
    expect(state).not.toHaveProperty('report_markdown');
    // Before v9 the report's text travelled in state (carried as a seed); since, it is in the artifact store.
    expect(state.report_seed).toBe(version < 9 ? (raw.report_markdown as string) || undefined : undefined);
    expect(state.inbox).toEqual([]);
    // Where the session is: one position, nothing beside it that could disagree.
    for (const gone of ['status', 'phase', 'step', 'waiting']) expect(state).not.toHaveProperty(gone);
    expect(state.mind).not.toHaveProperty('phase');
    const place = placeOf(state.position);
    if (place.at === 'research') expect(LOOP_PHASES).toContain(place.phase);
    // What every front end shows of it is what the recorded state said (a wait's status, a session at work).
    const shown = describePosition(state.position);
    if (isWaiting(String(raw.status)) || raw.status === 'running') expect(shown.status).toBe(raw.status);
    // Today's schema accepts the upgraded settings as they are: every default a version added is there.
    expect(researchSettingsSchema.parse(state.settings)).toEqual(state.settings);
    const status = raw.status as string;
    if (status === 'awaiting_approval') expect(state.position).toMatchObject({ at: 'waiting', wait: { for: 'approval' }, in: { at: 'plan' } });
    if (status === 'awaiting_clarification') expect(state.position).toMatchObject({ at: 'waiting', wait: { for: 'clarification' }, in: { at: 'plan' } });
    if (status === 'running') expect(state.position).toMatchObject({ at: 'research' });
    expect(state).not.toHaveProperty('approved');
    expect(state.mind).not.toHaveProperty('pause_after');
    // Upgrading an upgraded state changes nothing.
    expect(migrateState(state)).toEqual(state);
  });

  it('marks what the serial loop had already done, so the supervised loop does not redo it', () => {
    const v2 = fixtures.find((f) => f.file === 'v2-running.json')?.raw as Record<string, unknown>;
    const state = migrateState(v2);
    const fetched = state.sources.filter((x) => x.status === 'fetched');
    expect(fetched.length).toBeGreaterThan(0);
    expect(fetched.every((x) => x.analyzed)).toBe(true);
    expect(state.findings.every((f) => f.reported)).toBe(true);
    expect(state.position).toEqual({ at: 'research', phase: 'GATHERING' });
  });

  it('v10 records where a v9 session stopped early and which sections a finished v9 report stated as gaps', () => {
    const raw = (name: string) => fixtures.find((f) => f.file === name)?.raw as Record<string, unknown>;
    const cancelled = migrateState(raw('v9-cancelled.json'));
    // What a resume reopens: the section the cancelled run never reached, and how far it got.
    expect(cancelled.stops).toEqual([
      {
        status: 'cancelled',
        reason: 'recorded cancel',
        at: raw('v9-cancelled.json').updated_at,
        sources_read: cancelled.sources.filter((x) => x.status === 'fetched' && x.analyzed && !x.skipped_off_topic).length,
        findings: cancelled.findings.length,
        unwritten: ['Policy'],
      },
    ]);
    expect(cancelled.stops?.[0].sources_read).toBeGreaterThan(0);
    expect(cancelled.stated_gaps).toBeUndefined();
    // What an enhanced version reopens: every section the finished report stated as a gap.
    const completed = migrateState(raw('v9-completed.json'));
    expect(completed.stated_gaps).toEqual(['Overview', 'Costs and trends', 'Policy']);
    expect(completed.stops).toBeUndefined();
    // Carried by continue-as-new (no report text), a v9 state gains nothing it cannot know.
    const { report_markdown: _text, ...bare } = raw('v9-cancelled.json');
    expect(migrateState(bare).stops).toBeUndefined();
  });

  it('v11 reads where a v10 session is in its life into its step, once, and keeps its wait; v12 makes that one position', () => {
    const raw = (name: string) => fixtures.find((f) => f.file === name)?.raw as Record<string, unknown>;
    const at = (name: string) => migrateState(raw(name));
    const waitingFor = (kind: string) => expect.objectContaining({ for: kind, since: expect.any(String) });
    for (const v of ['v10', 'v11']) {
      expect(at(`${v}-awaiting-approval.json`).position, v).toEqual({ at: 'waiting', wait: waitingFor('approval'), in: { at: 'plan' } });
      // Mid-research, waiting for a top-up, paused for guidance: research goes on where it was.
      expect(at(`${v}-researching.json`).position, v).toEqual({ at: 'research', phase: 'GATHERING' });
      expect(at(`${v}-awaiting-budget.json`).position, v).toMatchObject({ at: 'waiting', wait: { for: 'budget', topups_seen: 0 }, in: { at: 'research', phase: 'GATHERING' } });
      // Paused after gathering: the pause ends at analysis.
      expect(at(`${v}-awaiting-guidance.json`).position, v).toMatchObject({ at: 'waiting', wait: { for: 'guidance' }, in: { at: 'research', phase: 'ANALYSIS' } });
      // A verified report waiting for its review: the review step, which the reviewer's feedback leaves for research.
      expect(at(`${v}-awaiting-review.json`), v).toMatchObject({ position: { at: 'waiting', wait: { for: 'review' }, in: { at: 'review' } }, verified: true });
      // The status to go back to after a wait is the place's to say now.
      expect(JSON.stringify(at(`${v}-awaiting-budget.json`).position), v).not.toMatch(/resume_/);
    }
    expect((raw('v10-awaiting-guidance.json').mind as Record<string, unknown>).pause_after).toBe('gathering');
    expect(at('v10-awaiting-guidance.json').mind).not.toHaveProperty('pause_after');
    // A pause that was due but had not begun (the run continued as new in between) is that wait.
    const due = { ...raw('v10-researching.json'), mind: { ...(raw('v10-researching.json').mind as object), pause_after: 'analysis' } };
    expect(migrateState(due).position).toMatchObject({ at: 'waiting', wait: { for: 'guidance' }, in: { at: 'research', phase: 'GATHERING' } });
    // A session before approval asks for its topic or plans; one waiting for a panel's confirmation answers as a panel.
    expect(migrateState({ ...raw('v10-awaiting-approval.json'), initial_query: '', waiting: undefined, status: 'awaiting_topic' }).position).toEqual({ at: 'topic' });
    const panel = { ...raw('v10-awaiting-budget.json'), status: 'awaiting_confirmation', panel: { models: ['a:b'], answers: {}, confirmations: [], skip_synthesis: false }, waiting: { for: 'confirmation', since: 'x' } };
    expect(migrateState(panel).position).toEqual({ at: 'waiting', wait: { for: 'confirmation', since: 'x' }, in: { at: 'panel', part: 'answers' } });
    // A v11 session that ended keeps the place it ended in: a resume goes on from there.
    const ended = { ...raw('v11-researching.json'), status: 'timed_out', phase: 'done' };
    expect(migrateState(ended).position).toEqual({ at: 'ended', outcome: 'timed_out', in: { at: 'research', phase: 'GATHERING' } });
  });

  it('refuses a state from a newer build, and what is not a state', () => {
    expect(() => migrateState({ state_version: STATE_VERSION + 1, settings: {} })).toThrow(/newer than this build/);
    expect(() => migrateState({ hello: 'world' })).toThrow(/not a research state/);
  });
});

describe('sessions going on from every recorded version, on today\'s build', () => {
  let harness: Harness;
  let env: TestEnvironment;

  beforeAll(async () => {
    harness = await startHarness({ model: { gapIterations: 1 } });
    env = await startEnvironment(harness, inject('temporalAddress'));
  });
  afterAll(async () => {
    await env?.close();
    await harness?.close();
  });

  /** A recorded state as the session store would have kept it, under a fresh id. */
  const asStored = (raw: Record<string, unknown>, id: string) =>
    ({ ...raw, research_id: id, last_event_seq: raw.persisted_seq, report_markdown: raw.report_markdown ?? '' }) as unknown as ResearchSnapshot;

  it('a session caught mid-research finishes its research', async () => {
    const running = fixtures.filter((f) => f.file.endsWith('-running.json'));
    const ids = running.map((f) => `mig-${f.file.replace(/\.json$/, '')}`);
    await Promise.all(running.map((f, i) => env.client.startRun(continuationState(asStored(f.raw, ids[i])), 'REJECT_DUPLICATE')));
    for (const [i, id] of ids.entries()) {
      await env.client.waitForResult(id);
      const s = await env.client.state(id);
      expect(s.status, running[i].file).toBe('completed');
      // The report it had is where the new one starts from, and verification has run on it.
      expect(s.report_markdown, running[i].file).toContain('## ');
      expect(s.report_markdown, running[i].file).not.toContain('_Research in progress._');
      expect(s.state_version).toBe(STATE_VERSION);
      expect(s.findings.length, running[i].file).toBeGreaterThanOrEqual(running[i].raw.findings ? (running[i].raw.findings as unknown[]).length : 0);
    }
  });

  it('a session waiting for approval waits again, and researches once approved', async () => {
    const waiting = fixtures.filter((f) => f.file.endsWith('-awaiting-approval.json'));
    const ids = waiting.map((f) => `mig-${f.file.replace(/\.json$/, '')}`);
    await Promise.all(waiting.map((f, i) => env.client.startRun(continuationState(asStored(f.raw, ids[i])), 'REJECT_DUPLICATE')));
    for (const id of ids) {
      await waitFor(`${id} awaiting approval`, async () => (await env.client.state(id)).status === 'awaiting_approval');
      await env.client.approve(id);
    }
    for (const [i, id] of ids.entries()) {
      await env.client.waitForResult(id);
      const s = await env.client.state(id);
      expect(s.status, waiting[i].file).toBe('completed');
      expect(s.sources.some((x) => x.status === 'fetched'), waiting[i].file).toBe(true);
    }
  });
});
