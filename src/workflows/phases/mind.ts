// The supervised research loop (the seed's phase machine):
//   GATHERING → ANALYSIS → (critic: PASS | REVISE → GATHERING) → SYNTHESIS → REFINEMENT → GATHERING … → COMPLETED
// Gathering streams batch by batch into the living report; every phase then ends with its quality
// gate, a supervisor reflection and a recorded decision. All progress lives in state (phase,
// markers on sources and findings), so a continued run resumes here.
import { isCancellation } from '@temporalio/workflow';
import { decisionFromIteration } from '../../research/decisions';
import { decideIteration, gatheringGate, analysisGate, synthesisGate, refinementGate } from '../../research/gates';
import { classifySource } from '../../research/vetting';
import { model } from '../activities';
import { errorMessage, type ResearchSession } from '../session';
import type { Finding, MindPhase, ResearchPlan } from '../../domain/types';
import { exhaustedBudget } from './budget';
import { branchesOn, continueAsNewWhenDue, drainReport, runBranches, runPipelinedBranches } from './branches';
import { modelCall } from './model-slots';
import { afterPhase, pauseForGuidance } from './oversight';
import { withModelFallback } from './providers';
import { analyzeBatch, continueAsNewIfDue, fetchAndParse, nextBatch, normalizeQuery, patchReport, searchBatch, startFirstIteration } from './research';
import { persistSession } from './persist';
import { relevanceGateOn, skipOffTopic } from './relevance';

export async function runSupervisedResearch(s: ResearchSession): Promise<void> {
  const mind = s.mind();
  if (s.state.iteration === 0) {
    startFirstIteration(s);
    mind.phase = 'GATHERING';
  }
  for (;;) {
    if (!visit(s, mind.phase)) mind.phase = 'COMPLETED';
    switch (mind.phase) {
      case 'GATHERING':
        mind.phase = await gather(s);
        break;
      case 'ANALYSIS':
        mind.phase = await analyze(s);
        break;
      case 'SYNTHESIS':
        mind.phase = await synthesize(s);
        break;
      case 'REFINEMENT':
        mind.phase = await refine(s);
        break;
      default:
        if (branchesOn(s)) await drainReport(s);
        return;
    }
    await persistSession(s);
    await (branchesOn(s) ? continueAsNewWhenDue(s) : continueAsNewIfDue(s));
  }
}

/** The engine-wide backstop: no phase runs more than max_phase_visits times. */
function visit(s: ResearchSession, phase: MindPhase): boolean {
  const mind = s.mind();
  if (phase === 'COMPLETED' || phase === 'ABORTED') return true;
  const visits = (mind.phase_visits[phase] = (mind.phase_visits[phase] ?? 0) + 1);
  const limit = s.settings.max_phase_visits ?? 40;
  if (visits <= limit) return true;
  s.decide({ agent: 'supervisor', action: 'stop', rationale: `${phase} reached its limit of ${limit} visits`, inputs: { phase }, outputs: {} });
  return false;
}

async function gather(s: ResearchSession): Promise<MindPhase> {
  const st = s.state;
  if (st.pipelined) await runPipelinedBranches(s, () => vetSources(s));
  else {
    if (st.pending_queries.length > 0) await searchBatch(s);
    vetSources(s);
    if (branchesOn(s)) await runBranches(s);
    else await fetchPending(s);
  }
  const planned = st.searched_queries.length;
  const completed = new Set(st.sources.filter((x) => x.status === 'fetched').map((x) => normalizeQuery(x.query))).size;
  rateSources(s);
  const gate = gatheringGate(st.sources, planned, completed, (source) => source.quality, s.settings.vetting_lists);
  const retry = await afterPhase(s, 'gathering', gate, { sources: st.sources.length, fetched: gate.metrics.fetched_sources ?? 0 });
  if (retry) {
    const queries = await refinedQueries(s, `gathering fell short: ${gate.failures.join('; ')}`, retry);
    if (queries.length) {
      st.pending_queries = queries;
      return 'GATHERING';
    }
  }
  return 'ANALYSIS';
}

/**
 * Batch by batch, as in the engine: fetch and parse, extract findings, patch the living report.
 * The analysis and synthesis phases then finish whatever a batch left and judge the whole round.
 */
async function fetchPending(s: ResearchSession): Promise<void> {
  for (let batch = nextBatch(s); batch.length > 0; batch = nextBatch(s)) {
    await fetchAndParse(s, batch);
    const findings = await analyzeBatch(s, batch);
    for (const source of batch) source.analyzed = true;
    if (findings.length > 0) {
      await patchReport(s, findings);
      for (const f of findings) f.reported = true;
    }
    await persistSession(s);
    await continueAsNewIfDue(s);
  }
}

/** Credibility tiers from host, TLD and known domains; deterministic, so it runs in the workflow. */
function vetSources(s: ResearchSession): void {
  const counts: Record<string, number> = {};
  for (const source of s.state.sources) {
    if (source.tier) continue;
    const vetted = classifySource(source.url, s.settings.vetting_lists);
    source.tier = vetted.tier;
    source.credibility = vetted.score;
    counts[vetted.tier] = (counts[vetted.tier] ?? 0) + 1;
  }
  if (Object.keys(counts).length) {
    s.emit('Status', { level: 'info', kind: 'sources_vetted', tiers: counts, message: `vetted new sources: ${Object.entries(counts).map(([t, n]) => `${n} ${t}`).join(', ')}` });
  }
}

/** The tier's score moved by the analyzer's rating of each analysed source. */
function rateSources(s: ResearchSession): void {
  for (const source of s.state.sources) {
    if (source.quality) source.credibility = classifySource(source.url, s.settings.vetting_lists, source.quality).score;
  }
}

async function analyze(s: ResearchSession): Promise<MindPhase> {
  const st = s.state;
  const unanalyzed = () => st.sources.filter((x) => x.status === 'fetched' && !x.analyzed);
  for (let batch = unanalyzed().slice(0, s.settings.batch_size); batch.length > 0; batch = unanalyzed().slice(0, s.settings.batch_size)) {
    if (st.pipelined) {
      // Relevance first, outside the model slot it does not need.
      if (relevanceGateOn()) await skipOffTopic(s, batch.filter((x) => x.text_file_id && !x.skipped_off_topic));
      await modelCall(s, () => analyzeBatch(s, batch));
    } else await analyzeBatch(s, batch);
    for (const source of batch) source.analyzed = true;
    await persistSession(s);
    await continueAsNewIfDue(s);
  }
  const gate = analysisGate(st.findings, st.sources);
  const retry = await afterPhase(s, 'analysis', gate, { findings: st.findings.length, gaps: st.gaps.filter((g) => !g.addressed).length });
  if (await reflexion(s, retry)) return 'GATHERING';
  // With branches the report lane writes beside the loop: the next round need not wait for it.
  return branchesOn(s) ? 'REFINEMENT' : 'SYNTHESIS';
}

/** The critic reviews the merged findings: PASS, or REVISE with feedback and another gathering round. */
async function reflexion(s: ResearchSession, guidance: string | undefined): Promise<boolean> {
  const st = s.state;
  const mind = s.mind();
  if (s.settings.reflexion === false || st.findings.length === 0) return false;
  const plan = st.plan as ResearchPlan;
  const out = await modelCall(s, () => withModelFallback(s, 'critic', (choice) =>
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
          max_revisions: s.settings.max_reflexion_revisions ?? 2,
          guidance: [...s.takeGuidance('reflexion'), ...(guidance ? [guidance] : [])],
          model: choice,
        }),
      (r) => ({ verdict: r.verdict, suggested_queries: r.suggested_queries.length, usage: r.usage }),
    ),
  ));
  s.addModelUsage(out.usage);
  for (const c of out.contradictions) if (!mind.contradictions.some((k) => k.description === c.description)) mind.contradictions.push(c);
  const budgetLeft = (s.settings.max_reflexion_revisions ?? 2) - mind.reflexion_revisions;
  const searched = new Set(st.searched_queries.map(normalizeQuery));
  const queries = out.suggested_queries.filter((q) => !searched.has(normalizeQuery(q))).slice(0, 5);
  const revise = out.verdict === 'REVISE' && budgetLeft > 0 && queries.length > 0 && !exhaustedBudget(s, 'search');
  s.decide({
    agent: 'critic',
    action: revise ? 'revise' : out.verdict === 'REVISE' ? 'revise_declined' : 'pass',
    rationale: revise
      ? out.feedback
      : out.verdict === 'REVISE'
        ? `critic asked for a revision (${out.feedback}) but ${budgetLeft <= 0 ? `all ${s.settings.max_reflexion_revisions ?? 2} revisions are used` : 'no new query or budget is left'}`
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

async function synthesize(s: ResearchSession): Promise<MindPhase> {
  const st = s.state;
  const chunk = Math.max(2, s.settings.batch_size * 2);
  if (branchesOn(s)) await drainReport(s);
  const unreported = () => st.findings.filter((f) => !f.reported);
  for (let findings = unreported().slice(0, chunk); findings.length > 0; findings = unreported().slice(0, chunk)) {
    if (st.pipelined) await modelCall(s, () => patchReport(s, findings));
    else await patchReport(s, findings);
    for (const f of findings) f.reported = true;
    await persistSession(s);
    await continueAsNewIfDue(s);
  }
  const gate = synthesisGate(st.report_markdown);
  await afterPhase(s, 'synthesis', gate, { report_chars: st.report_markdown.length });
  return branchesOn(s) ? 'COMPLETED' : 'REFINEMENT';
}

/** decide_iteration, then the refiner turns open gaps, critique and guidance into the next queries. */
async function refine(s: ResearchSession): Promise<MindPhase> {
  const st = s.state;
  const open = st.gaps.filter((g) => !g.addressed);
  // With search down, another iteration could only re-read what is already here.
  const budgetSpent = exhaustedBudget(s, 'search') !== undefined || st.search_outage !== undefined;
  const sourcesFull = st.sources.length >= s.settings.max_sources;
  const decision = sourcesFull && open.length
    ? { action: 'complete' as const, rationale: `${open.length} gaps open, but the source budget (${s.settings.max_sources}) is used` }
    : decideIteration(st.gaps, st.iteration, s.settings.max_iterations, budgetSpent);
  s.decide(decisionFromIteration(decision, { iteration: st.iteration, maxIterations: s.settings.max_iterations, openGaps: open.length, budgetExhausted: budgetSpent }, ''));
  // Lean oversight: the refinement gate, and the one reflection of the iteration beside the refiner.
  const reflection = s.state.lean_oversight ? endOfIteration(s, open.length, budgetSpent || sourcesFull) : undefined;
  const done: MindPhase = branchesOn(s) ? 'SYNTHESIS' : 'COMPLETED';
  if (decision.action === 'complete') {
    // Nothing after the last iteration waits for its reflection: it runs beside synthesis and the
    // citation checks, and is joined before the session ends (pipelined sessions).
    if (reflection && st.pipelined && !s.settings.pause_for_guidance) s.runBeside(reflection);
    else await reflection;
    await pauseForGuidance(s, 'refinement');
    return done;
  }
  const [queries] = await Promise.all([refinedQueries(s, undefined, undefined), reflection]);
  for (const gap of open) gap.addressed = true;
  if (queries.length === 0) {
    s.decide({ agent: 'refiner', action: 'complete', rationale: 'open gaps suggest no new queries', inputs: { open_gaps: open.length }, outputs: {} });
    return done;
  }
  st.iteration += 1;
  st.pending_queries = queries;
  s.info(`iteration ${st.iteration} of ${s.settings.max_iterations}: ${queries.length} queries for ${open.length} gaps`);
  await pauseForGuidance(s, 'refinement');
  return 'GATHERING';
}

/** The refinement gate ("passed": another round is worth running) and the iteration's reflection. */
async function endOfIteration(s: ResearchSession, openGaps: number, searchSpent: boolean): Promise<void> {
  const st = s.state;
  const gate = refinementGate(st.gaps, s.settings.max_iterations - st.iteration, searchSpent ? { searches: 0 } : {});
  await afterPhase(s, 'refinement', gate, { iteration: st.iteration, open_gaps: openGaps }, { endOfIteration: true, pause: false });
}

/** New queries from the refiner; the gaps' own suggestions when the refiner has none or fails. */
async function refinedQueries(s: ResearchSession, problem: string | undefined, supervisorGuidance: string | undefined): Promise<string[]> {
  const st = s.state;
  const mind = s.mind();
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
  const gaps = [...open.map((g) => ({ description: g.description, suggested_queries: g.suggested_queries, priority: g.priority }))];
  if (problem) gaps.unshift({ description: problem, suggested_queries: [], priority: 1 });
  try {
    const criticFeedback = mind.research_feedback?.find((f) => f.startsWith('Critic: '))?.slice('Critic: '.length);
    const out = await modelCall(s, () => withModelFallback(s, 'refiner', (choice) =>
      s.tool(
        'refine_gaps',
        { gaps: gaps.length, iteration: st.iteration, model: choice },
        () =>
          model.refineGaps({
            query: st.initial_query,
            research_brief: plan.research_brief,
            findings_summary: st.findings.slice(-30).map((f: Finding) => f.content),
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
    ));
    s.addModelUsage(out.usage);
    const queries = fresh(out.gaps.sort((a, b) => a.priority - b.priority).flatMap((g) => g.suggested_queries));
    s.decide({ agent: 'refiner', action: 'queries', rationale: out.rationale, inputs: { gaps: gaps.length }, outputs: { queries } });
    // The gaps the refiner named travel with its queries into every branch of the next round.
    if (queries.length) {
      const reviewer = (mind.research_feedback ?? []).filter((f) => f.startsWith('Reviewer: '));
      mind.research_feedback = [...reviewer, ...out.gaps.slice(0, 6).map((g) => `Gap: ${g.description}`)];
    }
    if (queries.length) return queries;
  } catch (err) {
    if (isCancellation(err)) throw err;
    s.warn(`refiner failed (${errorMessage(err)}): using the gaps' own suggestions`);
  }
  return fresh(open.sort((a, b) => a.priority - b.priority).flatMap((g) => g.suggested_queries));
}

