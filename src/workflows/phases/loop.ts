// The research loop, as the seed's phase machine walks it:
//   GATHERING → ANALYSIS → REFINEMENT (critic ‖ refiner) → GATHERING … → SYNTHESIS → COMPLETED
// Gathering fans out into branches that write the living report beside the loop; every phase
// ends with its quality gate (and a reflection only when it matters). All progress lives in
// state (the phase, marks on sources and findings), so a new run resumes exactly here.
import { analysisGate, gatheringGate, synthesisGate } from '../../research/gates';
import type { MindPhase, ResearchPlan } from '../../domain/types';
import { normalizeQuery } from '../../domain/text';
import { continueAsNewIfDue } from '../runs';
import type { ResearchSession } from '../session';
import { analyzeBatch } from './analysis';
import { fillEmptySections } from './fill';
import { drainReport, gatherRound } from './gather';
import { guidanceAfterFinish, noRoomToSearch, refine, refinedQueries } from './mind';
import { afterPhase, pauseAfter, pauseIfDue, retryByRule } from './oversight';
import { persistBeside } from './persist';
import { patchReport } from './report';
import { rateSources } from './sources';

export async function runResearchLoop(s: ResearchSession): Promise<void> {
  const mind = s.mind;
  if (s.state.iteration === 0) startFirstIteration(s);
  if (mind.phase === 'PLANNING') mind.phase = 'GATHERING';
  for (;;) {
    await pauseIfDue(s);
    if (mind.phase === 'COMPLETED') mind.phase = guidanceAfterFinish(s) ?? 'COMPLETED';
    if (!visit(s, mind.phase)) mind.phase = 'COMPLETED';
    const phase: MindPhase = mind.phase;
    if (phase === 'COMPLETED' || phase === 'ABORTED' || phase === 'PLANNING') break;
    mind.phase = await PHASES[phase](s);
    persistBeside(s);
    await continueAsNewIfDue(s, () => drainReport(s));
  }
  await drainReport(s);
  // Guidance that came while the last patches were written: another round, or declined.
  if (mind.phase === 'COMPLETED' && mind.guidance.some((g) => !g.applied_to)) await runResearchLoop(s);
}

const PHASES: Record<Exclude<MindPhase, 'COMPLETED' | 'ABORTED' | 'PLANNING'>, (s: ResearchSession) => Promise<MindPhase>> = {
  GATHERING: gather,
  ANALYSIS: analyze,
  REFINEMENT: refine,
  SYNTHESIS: synthesize,
};

export function startFirstIteration(s: ResearchSession): void {
  const plan = s.state.plan as ResearchPlan;
  s.state.iteration = 1;
  s.state.pending_queries = [...plan.expanded_queries].sort((a, b) => a.priority - b.priority).map((q) => q.query);
  s.info(`iteration 1 of ${s.settings.max_iterations}: ${s.state.pending_queries.length} queries`);
}

/** The engine-wide backstop: no phase runs more than max_phase_visits times. */
function visit(s: ResearchSession, phase: MindPhase): boolean {
  const mind = s.mind;
  if (phase === 'COMPLETED' || phase === 'ABORTED') return true;
  const visits = (mind.phase_visits[phase] = (mind.phase_visits[phase] ?? 0) + 1);
  const limit = s.settings.max_phase_visits;
  if (visits <= limit) return true;
  s.decide({ agent: 'supervisor', action: 'stop', rationale: `${phase} reached its limit of ${limit} visits`, inputs: { phase }, outputs: {} });
  return false;
}

async function gather(s: ResearchSession): Promise<MindPhase> {
  const st = s.state;
  await gatherRound(s);
  const planned = st.searched_queries.length;
  const completed = new Set(st.sources.filter((x) => x.status === 'fetched').map((x) => normalizeQuery(x.query))).size;
  rateSources(s);
  const gate = gatheringGate(st.sources, planned, completed, (source) => source.quality, s.settings.vetting_lists);
  afterPhase(s, 'gathering', gate, { sources: st.sources.length, fetched: gate.metrics.fetched_sources ?? 0 });
  pauseAfter(s, 'gathering');
  if (retryByRule(s, 'gathering', gate, noRoomToSearch(s))) {
    const { queries } = await refinedQueries(s, `gathering fell short: ${gate.fixable.join('; ')}`);
    if (queries.length) {
      st.pending_queries = queries;
      return 'GATHERING';
    }
  }
  return 'ANALYSIS';
}

/** Sources a branch fetched but did not analyse (a stopped run), then the analysis gate and the critic. */
async function analyze(s: ResearchSession): Promise<MindPhase> {
  const st = s.state;
  const unanalyzed = () => st.sources.filter((x) => x.status === 'fetched' && !x.analyzed).slice(0, s.settings.batch_size);
  for (let batch = unanalyzed(); batch.length > 0; batch = unanalyzed()) {
    await analyzeBatch(s, batch);
    for (const source of batch) source.analyzed = true;
    persistBeside(s);
  }
  const gate = analysisGate(st.findings, st.sources);
  afterPhase(s, 'analysis', gate, { findings: st.findings.length, gaps: st.gaps.filter((g) => !g.addressed).length });
  pauseAfter(s, 'analysis');
  // Too few findings is for the critic's revision round to mend.
  retryByRule(s, 'analysis', gate, "another gathering round is the critic's to ask for");
  // The report lane writes beside the loop: the critic and the refiner need not wait for it.
  return 'REFINEMENT';
}

/** The lane's patches, then whatever findings no patch has written yet. */
async function synthesize(s: ResearchSession): Promise<MindPhase> {
  const st = s.state;
  // A panel writes no living report: its models answer from the findings afterwards.
  if (st.panel) return 'COMPLETED';
  const chunk = Math.max(2, s.settings.batch_size * 2);
  await fillEmptySections(s);
  await drainReport(s);
  const unreported = () => st.findings.filter((f) => !f.reported).slice(0, chunk);
  for (let findings = unreported(); findings.length > 0; findings = unreported()) {
    await patchReport(s, findings);
    for (const f of findings) f.reported = true;
    persistBeside(s);
  }
  const gate = synthesisGate(st.report_shape ?? { chars: st.report_chars, sections: 0, sections_with_content: 0 });
  afterPhase(s, 'synthesis', gate, { report_chars: st.report_chars }, { noPhaseAfter: true });
  pauseAfter(s, 'synthesis');
  return 'COMPLETED';
}
