// The research mind's judgement between rounds: the critic's review of the findings (PASS, or
// REVISE with another gathering round), the iteration decision, and the refiner that turns open
// gaps, critique and guidance into the next round's queries.
import { isCancellation } from '@temporalio/workflow';
import { decisionFromIteration } from '../../research/decisions';
import { decideIteration, refinementGate } from '../../research/gates';
import { normalizeQuery } from '../../domain/text';
import type { MindPhase, ResearchPlan } from '../../domain/types';
import { model } from '../activities';
import { errorMessage, type ResearchSession } from '../session';
import { exhaustedBudget, stopsResearch } from './budget';
import { afterPhase, pauseAfter } from './oversight';
import { callModel } from './providers';

/** The critic reviews the merged findings: true when it asks for a revision round (queries are set). */
export async function reflexion(s: ResearchSession, guidance: string | undefined): Promise<boolean> {
  const st = s.state;
  const mind = s.mind;
  if (!s.settings.reflexion || st.findings.length === 0) return false;
  const plan = st.plan as ResearchPlan;
  const maxRevisions = s.settings.max_reflexion_revisions;
  const out = await callModel(s, 'critic', (choice) =>
    s.tool(
      'critique_findings',
      { findings: st.findings.length, revision: mind.reflexion_revisions, model: choice },
      () =>
        model.critiqueFindings({
          query: st.initial_query,
          research_brief: plan.research_brief,
          outline: plan.outline,
          findings: st.findings.slice(-40).map((f) => ({ id: f.id, content: f.content, confidence: f.confidence, source_ids: f.source_ids })),
          sources: st.sources.filter((x) => x.status === 'fetched').map((x) => ({ id: x.id, title: x.title, url: x.url, tier: x.tier, ...(x.quality ? { quality: x.quality } : {}) })),
          revision: mind.reflexion_revisions + 1,
          max_revisions: maxRevisions,
          guidance: [...s.takeGuidance('reflexion'), ...(guidance ? [guidance] : [])],
          model: choice,
        }),
      (r) => ({ verdict: r.verdict, suggested_queries: r.suggested_queries.length, usage: r.usage }),
    ),
  );
  for (const c of out.contradictions) if (!mind.contradictions.some((k) => k.description === c.description)) mind.contradictions.push(c);
  const budgetLeft = maxRevisions - mind.reflexion_revisions;
  const searched = new Set(st.searched_queries.map(normalizeQuery));
  const queries = out.suggested_queries.filter((q) => !searched.has(normalizeQuery(q))).slice(0, 5);
  const revise = out.verdict === 'REVISE' && budgetLeft > 0 && queries.length > 0 && !exhaustedBudget(s, 'search');
  s.decide({
    agent: 'critic',
    action: revise ? 'revise' : out.verdict === 'REVISE' ? 'revise_declined' : 'pass',
    rationale: revise
      ? out.feedback
      : out.verdict === 'REVISE'
        ? `critic asked for a revision (${out.feedback}) but ${budgetLeft <= 0 ? `all ${maxRevisions} revisions are used` : 'no new query or budget is left'}`
        : out.feedback || 'findings cover the plan',
    inputs: { findings: st.findings.length, revision: mind.reflexion_revisions },
    outputs: { verdict: out.verdict, missing: out.missing, queries, contradictions: out.contradictions.length },
  });
  if (!revise) return false;
  mind.reflexion_revisions += 1;
  st.pending_queries = queries;
  // The critic's words, not only its queries, reach every branch of the revision.
  mind.research_feedback = [`Critic: ${out.feedback}`, ...out.missing.map((m) => `Missing: ${m}`)].slice(0, 6);
  return true;
}

/** decide_iteration, then the refiner turns open gaps, critique and guidance into the next queries. */
export async function refine(s: ResearchSession): Promise<MindPhase> {
  const st = s.state;
  const open = st.gaps.filter((g) => !g.addressed);
  // With search down, another iteration could only re-read what is already here.
  const budgetSpent = exhaustedBudget(s, 'search') !== undefined || st.search_outage !== undefined;
  const sourcesFull = st.sources.length >= s.settings.max_sources;
  const decision = sourcesFull && open.length
    ? { action: 'complete' as const, rationale: `${open.length} gaps open, but the source budget (${s.settings.max_sources}) is used` }
    : decideIteration(st.gaps, st.iteration, s.settings.max_iterations, budgetSpent);
  s.decide(decisionFromIteration(decision, { iteration: st.iteration, maxIterations: s.settings.max_iterations, openGaps: open.length, budgetExhausted: budgetSpent }, ''));
  // The refinement gate and the one reflection of the iteration, beside the refiner.
  const reflection = endOfIteration(s, open.length, budgetSpent || sourcesFull);
  pauseAfter(s, 'refinement');
  if (decision.action === 'complete') {
    // Nothing after the last iteration waits for its reflection: it runs beside synthesis and the
    // citation checks, and is joined before the run ends.
    if (s.settings.pause_for_guidance) await reflection;
    else s.runBeside(reflection);
    return 'SYNTHESIS';
  }
  const [queries] = await Promise.all([refinedQueries(s, undefined, undefined), reflection]);
  for (const gap of open) gap.addressed = true;
  if (queries.length === 0) {
    s.decide({ agent: 'refiner', action: 'complete', rationale: 'open gaps suggest no new queries', inputs: { open_gaps: open.length }, outputs: {} });
    return 'SYNTHESIS';
  }
  st.iteration += 1;
  st.pending_queries = queries;
  s.info(`iteration ${st.iteration} of ${s.settings.max_iterations}: ${queries.length} queries for ${open.length} gaps`);
  return 'GATHERING';
}

/** The refinement gate ("passed": another round is worth running) and the iteration's reflection. */
async function endOfIteration(s: ResearchSession, openGaps: number, searchSpent: boolean): Promise<void> {
  const st = s.state;
  const gate = refinementGate(st.gaps, s.settings.max_iterations - st.iteration, searchSpent ? { searches: 0 } : {});
  await afterPhase(s, 'refinement', gate, { iteration: st.iteration, open_gaps: openGaps }, { endOfIteration: true });
}

/** New queries from the refiner; the gaps' own suggestions when the refiner has none or fails. */
export async function refinedQueries(s: ResearchSession, problem: string | undefined, supervisorGuidance: string | undefined): Promise<string[]> {
  const st = s.state;
  const mind = s.mind;
  const open = st.gaps.filter((g) => !g.addressed);
  const plan = st.plan as ResearchPlan;
  const limit = Math.max(2, plan.expanded_queries.length);
  const searched = new Set([...st.searched_queries, ...st.pending_queries].map(normalizeQuery));
  const fresh = (queries: string[]) => {
    const out: string[] = [];
    for (const q of queries) {
      const key = normalizeQuery(q);
      if (!q.trim() || searched.has(key) || out.length >= limit) continue;
      searched.add(key);
      out.push(q.trim());
    }
    return out;
  };
  const gaps = open.map((g) => ({ description: g.description, suggested_queries: g.suggested_queries, priority: g.priority }));
  if (problem) gaps.unshift({ description: problem, suggested_queries: [], priority: 1 });
  try {
    const criticFeedback = mind.research_feedback?.find((f) => f.startsWith('Critic: '))?.slice('Critic: '.length);
    const out = await callModel(s, 'refiner', (choice) =>
      s.tool(
        'refine_gaps',
        { gaps: gaps.length, iteration: st.iteration, model: choice },
        () =>
          model.refineGaps({
            query: st.initial_query,
            research_brief: plan.research_brief,
            findings_summary: st.findings.slice(-30).map((f) => f.content),
            open_gaps: gaps,
            searched_queries: st.searched_queries,
            iteration: st.iteration,
            max_iterations: s.settings.max_iterations,
            guidance: [...s.takeGuidance('refinement'), ...(supervisorGuidance ? [supervisorGuidance] : [])],
            ...(criticFeedback ? { critic_feedback: criticFeedback } : {}),
            model: choice,
          }),
        (r) => ({ gaps: r.gaps.length, usage: r.usage }),
      ),
    );
    const queries = fresh(out.gaps.sort((a, b) => a.priority - b.priority).flatMap((g) => g.suggested_queries));
    s.decide({ agent: 'refiner', action: 'queries', rationale: out.rationale, inputs: { gaps: gaps.length }, outputs: { queries } });
    // The gaps the refiner named travel with its queries into every branch of the next round.
    if (queries.length) {
      const reviewer = (mind.research_feedback ?? []).filter((f) => f.startsWith('Reviewer: '));
      mind.research_feedback = [...reviewer, ...out.gaps.slice(0, 6).map((g) => `Gap: ${g.description}`)];
      return queries;
    }
  } catch (err) {
    if (stopsResearch(err) || isCancellation(err)) throw err;
    s.warn(`refiner failed (${errorMessage(err)}): using the gaps' own suggestions`);
  }
  return fresh(open.sort((a, b) => a.priority - b.priority).flatMap((g) => g.suggested_queries));
}
