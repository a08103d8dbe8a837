// The first state of an enhanced version, from snapshots the previous build's session store kept:
// what it takes on, what it reopens, and the budget it gets. No server: enhancedState is plain.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { enhancedState } from '../src/client/session-ops';
import { openQuestions } from '../src/domain/gaps';
import { researchSettingsSchema } from '../src/domain/settings';
import type { ResearchSnapshot } from '../src/domain/types';

const fixture = (name: string) => JSON.parse(readFileSync(path.join(__dirname, 'fixtures', 'state-versions', name), 'utf8')) as ResearchSnapshot;
const NOW = '2026-11-27T09:00:00.000Z';

describe('an enhanced version starts from its parent', () => {
  // A completed parent with two open questions: the v9 cancelled snapshot, taken as completed.
  const parent = { ...fixture('v9-cancelled.json'), status: 'completed' } as ResearchSnapshot;
  const settings = researchSettingsSchema.parse({ ...parent.settings, budget: { searches: 3, cost_usd: 0.5 } });

  it('takes on the parent\'s open questions when no focus is given, and keeps them open beside a focus', () => {
    const plain = enhancedState(parent, 'p-v2', settings, {}, NOW);
    expect(plain.gaps.filter((g) => g.for_enhancement).map((g) => g.description)).toEqual(parent.gaps.map((g) => g.description));
    const focused = enhancedState(parent, 'p-v2', settings, { focus: ' heat pumps in Norway ' }, NOW);
    expect(focused.gaps.filter((g) => g.for_enhancement)).toEqual([expect.objectContaining({ description: 'heat pumps in Norway', suggested_queries: ['heat pumps in Norway'], addressed: false })]);
    expect(openQuestions(focused).map((g) => g.description)).toEqual([...parent.gaps.map((g) => g.description), 'heat pumps in Norway']);
    expect(focused.enhancement).toEqual({ parent_id: parent.research_id, focus: 'heat pumps in Norway', reopen_sections: [] });
    // The new version's research picks up at refinement: its first round plans what it was asked for.
    expect(focused.position).toEqual({ at: 'research', phase: 'REFINEMENT' });
    // The focus is part of the version's plan: a page it finds is about what was asked.
    expect(focused.plan?.expanded_queries.map((q) => q.query)).toEqual([...(parent.plan?.expanded_queries ?? []).map((q) => q.query), 'heat pumps in Norway']);
    expect(plain.plan).toEqual(parent.plan);
  });

  it('does not take on a "gap" that restates a finding with its citation, which the parent\'s report lists nowhere', () => {
    const restated = { description: 'And it’s not just my backyard trees that are threatened under a changing climate. [S1]', suggested_queries: ['just backyard trees climate change'], priority: 2, addressed: false, iteration: 1 };
    const withFinding = { ...parent, gaps: [...parent.gaps, restated] } as ResearchSnapshot;
    const plain = enhancedState(withFinding, 'p-v2', settings, {}, NOW);
    expect(plain.gaps.filter((g) => g.for_enhancement).map((g) => g.description)).toEqual(parent.gaps.map((g) => g.description));
    // Only such gaps open: the version takes on the parent's thinnest section instead.
    const onlyFinding = enhancedState({ ...parent, gaps: [restated] } as ResearchSnapshot, 'p-v2', settings, {}, NOW);
    expect(onlyFinding.gaps.filter((g) => g.for_enhancement).map((g) => g.description)).toEqual([expect.stringMatching(/^The report says least about/)]);
  });

  it('reopens the sections the parent stated as gaps, and with no open question takes on its thinnest section', () => {
    const done = fixture('v9-completed.json');
    const v2 = enhancedState({ ...done, stated_gaps: ['Overview', 'Costs and trends', 'Policy'] }, 'd-v2', researchSettingsSchema.parse(done.settings), {}, NOW);
    expect(v2.enhancement?.reopen_sections).toEqual(['Overview', 'Costs and trends', 'Policy']);
    expect(v2.gaps.filter((g) => g.for_enhancement)).toEqual([expect.objectContaining({ description: 'The report says least about “Overview”', suggested_queries: ['Recorded: nothing on topic Overview'] })]);
  });

  it('gets as much budget again as its parent had, counted from its own start', () => {
    const v2 = enhancedState(parent, 'p-v2', settings, {}, NOW);
    expect(v2.settings.budget).toEqual({ searches: parent.usage.search_calls + 3, cost_usd: (parent.usage.cost_usd ?? 0) + 0.5 });
    expect(v2.mind.started_ms).toBe(Date.parse(NOW));
    expect(v2.mind.budget_topups).toEqual({});
    expect(v2.settings.max_sources).toBe(parent.sources.length + settings.max_sources);
  });
});
