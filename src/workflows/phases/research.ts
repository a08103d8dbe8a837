// The research step: the seed's phase machine, one phase per call.
//   GATHERING → ANALYSIS → REFINEMENT (critic ‖ refiner) → GATHERING … → SYNTHESIS → COMPLETED
// Gathering fans out into branches whose findings the report queue writes beside the loop; every
// phase ends with its quality gate (and a reflection only when it matters). With
// pause_for_guidance the session waits for a person after each phase. All progress lives in state
// (the mind's phase, marks on sources and findings), so a new run resumes exactly here.
import { analysisGate, gatheringGate, searchOutcomes, synthesisGate } from '../../research/gates';
import type { MindPhase, ResearchPlan } from '../../domain/types';
import { ApplicationFailure } from '@temporalio/workflow';
import { type Answer, goTo, type Next, waitFor } from '../runs';
import type { ResearchSession } from '../session';
import { analyzeBatch } from './analysis';
import { readInputContexts } from './contexts';
import { beginEnhancement } from './enhance';
import { fillEmptySections, recordGapsLeftOpen, recordSectionFill } from './fill';
import { gatherRound } from './gather';
import { guidanceAfterFinish, noRoomToSearch, refine, refinedQueries } from './mind';
import { afterPhase, retryByRule } from './oversight';
import { settlePanel } from './panel';
import { chooseProviders } from './providers';
import { patchReport, startReport } from './report';
import { reopenAfterStop } from './resume';
import { nothingToWriteFrom, rateSources } from './sources';

type WorkingPhase = Exclude<MindPhase, 'COMPLETED' | 'ABORTED' | 'PLANNING'>;

const PHASES: Record<WorkingPhase, (s: ResearchSession) => Promise<MindPhase>> = {
  GATHERING: gather,
  ANALYSIS: analyze,
  REFINEMENT: refine,
  SYNTHESIS: synthesize,
};

export async function research(s: ResearchSession, answer: Answer | undefined): Promise<Next> {
  const mind = s.mind;
  if (answer?.to === 'guidance' && answer.expired) s.info('no guidance arrived: continuing');
  await beginResearch(s);
  if (mind.phase === 'COMPLETED' || mind.phase === 'ABORTED') return endOfResearch(s);
  const phase = mind.phase as WorkingPhase;
  if (!visit(s, phase)) return goTo('research', 'COMPLETED');
  // A panel writes no living report: its models answer from the findings once research is done.
  if (phase === 'SYNTHESIS' && s.state.panel) return goTo('research', 'COMPLETED');
  mind.phase = await PHASES[phase](s);
  return pauseAfter(s, phase) ?? goTo('research');
}

/**
 * What research needs before its first phase, each done once and marked in state: the providers
 * (a panel's too), the report's skeleton (written beside the first searches), a stopped run's
 * report reopened, an enhanced version's parent report reopened, the user's contexts read, the
 * first iteration's queries.
 */
async function beginResearch(s: ResearchSession): Promise<void> {
  const st = s.state;
  if (st.status !== 'running') s.setStatus('running', 'searching');
  if (st.panel) await settlePanel(s);
  else if (!st.providers) await chooseProviders(s);
  if (!st.panel) startReport(s);
  await reopenAfterStop(s);
  await beginEnhancement(s);
  await readInputContexts(s);
  if (st.iteration === 0) startFirstIteration(s);
  if (s.mind.phase === 'PLANNING') s.mind.phase = 'GATHERING';
}

/** Every patch written; guidance that came meanwhile is one more round (or declined); then the checks. */
async function endOfResearch(s: ResearchSession): Promise<Next> {
  const st = s.state;
  await s.report.flush();
  if (guidanceAfterFinish(s)) return goTo('research', 'REFINEMENT');
  if (nothingToWriteFrom(s)) {
    const outage = st.search_outage as { message: string };
    throw ApplicationFailure.nonRetryable(`search was unavailable from the start and nothing was gathered to write from (${outage.message})`, 'SearchUnavailable');
  }
  return goTo(st.panel ? 'panel' : 'verify');
}

/** pause_for_guidance: after a phase the session waits for guidance or continue, unless guidance is already waiting. */
function pauseAfter(s: ResearchSession, phase: WorkingPhase): Next | undefined {
  if (!s.settings.pause_for_guidance || s.mind.guidance.some((g) => !g.applied_to)) return undefined;
  s.info(`paused after ${phase.toLowerCase()}: send guidance or continue (waiting up to ${s.settings.guidance_wait_seconds} s)`);
  return waitFor('guidance');
}

export function startFirstIteration(s: ResearchSession): void {
  const plan = s.state.plan as ResearchPlan;
  s.state.iteration = 1;
  s.state.pending_queries = [...plan.expanded_queries].sort((a, b) => a.priority - b.priority).map((q) => q.query);
  s.info(`iteration 1 of ${s.maxIterations}: ${s.state.pending_queries.length} queries`);
}

/** The engine-wide backstop: no phase runs more than max_phase_visits times. */
function visit(s: ResearchSession, phase: WorkingPhase): boolean {
  const mind = s.mind;
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
  const completed = searchOutcomes(st.sources, st.searched_queries);
  rateSources(s);
  const gate = gatheringGate(st.sources, planned, completed, (source) => source.quality, s.settings.vetting_lists);
  afterPhase(s, 'gathering', gate, { sources: st.sources.length, fetched: gate.metrics.fetched_sources ?? 0 });
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
    s.saveBeside();
  }
  const gate = analysisGate(st.findings, st.sources);
  afterPhase(s, 'analysis', gate, { findings: st.findings.length, gaps: st.gaps.filter((g) => !g.addressed).length });
  // Too few findings is for the critic's revision round to mend.
  retryByRule(s, 'analysis', gate, "another gathering round is the critic's to ask for");
  // The report queue writes beside the loop: the critic and the refiner need not wait for it.
  return 'REFINEMENT';
}

/** The queued patches, then whatever findings no patch has written yet. */
async function synthesize(s: ResearchSession): Promise<MindPhase> {
  const st = s.state;
  const chunk = Math.max(2, s.settings.batch_size * 2);
  await fillEmptySections(s);
  await s.report.flush();
  const unreported = () => st.findings.filter((f) => !f.reported).slice(0, chunk);
  for (let findings = unreported(); findings.length > 0; findings = unreported()) {
    await patchReport(s, findings);
    for (const f of findings) f.reported = true;
    s.saveBeside();
  }
  recordSectionFill(s);
  recordGapsLeftOpen(s);
  const gate = synthesisGate(st.report_shape ?? { chars: st.report_chars, sections: 0, sections_with_content: 0 });
  afterPhase(s, 'synthesis', gate, { report_chars: st.report_chars }, { noPhaseAfter: true });
  return 'COMPLETED';
}
