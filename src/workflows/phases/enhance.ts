// An enhanced version of a completed session (seed 004's enhanceResearch). It starts from the
// parent's state at refinement: the parent's report is reopened (the sections it stated as gaps
// empty again), its first round searches what it was asked for as given — the focus, or each open
// question's own query — beside the refiner's expansion of it, and its report is written on from
// the parent's. An open question stays open unless a query searched for it brought a finding.
import { normalizeQuery } from '../../domain/text';
import type { Gap, ResearchState } from '../../domain/types';
import { store } from '../activities';
import type { ResearchSession } from '../session';
import { setReport } from './report';

/** The parent's report, reopened for the new version; once. */
export async function beginEnhancement(s: ResearchSession): Promise<void> {
  const st = s.state;
  const e = st.enhancement;
  if (!e || e.reopened) return;
  if (st.report_file_id && !st.panel) setReport(s, await store.reopenReport({ report_file_id: st.report_file_id, sections: e.reopen_sections }));
  e.reopened = true;
  s.decide({
    agent: 'supervisor',
    action: 'enhancement_started',
    rationale: `a new version of ${e.parent_id}: ${e.focus ? `focus "${e.focus}"` : 'the open questions it left'}, searched as given first, then the refiner's queries`,
    inputs: { parent_id: e.parent_id, ...(e.focus ? { focus: e.focus } : {}) },
    outputs: { targets: targets(st).map((g) => g.description), reopened_sections: e.reopen_sections },
  });
}

/** The enhancement's first round, when it is the one being planned: the gaps it is for and the queries searched as given. */
export function enhancementRound(s: ResearchSession): { gaps: Gap[]; verbatim: string[] } | undefined {
  const e = s.state.enhancement;
  if (!e || e.planned) return undefined;
  e.planned = true;
  // As many as a round of the plan searches; the open questions past them stay open.
  const limit = Math.max(2, s.state.plan?.expanded_queries.length ?? 0);
  const gaps = [...targets(s.state)].sort((a, b) => a.priority - b.priority).slice(0, limit);
  const searched = new Set(s.state.searched_queries.map(normalizeQuery));
  const verbatim: string[] = [];
  for (const gap of gaps) {
    const query = (gap.suggested_queries[0] ?? gap.description).trim();
    gap.searched_for = [query];
    if (query && !searched.has(normalizeQuery(query)) && !verbatim.includes(query)) verbatim.push(query);
  }
  return { gaps, verbatim };
}

/** The refiner's queries for a focus are the focus's too: a finding from any of them closes it. */
export function plannedFor(gaps: Gap[], refined: string[], focus: boolean): void {
  for (const gap of gaps) {
    gap.addressed = true;
    if (focus) gap.searched_for = [...(gap.searched_for ?? []), ...refined];
  }
}

function targets(st: ResearchState): Gap[] {
  return st.gaps.filter((g) => g.for_enhancement && !g.addressed);
}

/**
 * The questions the report leaves open: gaps no round took on, and gaps searched for as given
 * (an enhancement's) that none of their queries brought a finding for.
 */
export function openQuestions(st: ResearchState): Gap[] {
  const queryOf = new Map(st.sources.map((x) => [x.id, normalizeQuery(x.query)]));
  const answered = new Set(st.findings.flatMap((f) => f.source_ids.map((id) => queryOf.get(id))));
  const closed = (g: Gap) => (g.searched_for ?? []).some((q) => answered.has(normalizeQuery(q)));
  return st.gaps.filter((g) => !g.addressed || (g.searched_for !== undefined && !closed(g)));
}
