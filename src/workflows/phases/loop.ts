// The research loop, as the seed's phase machine walks it:
//   GATHERING → ANALYSIS → REFINEMENT (critic ‖ refiner) → GATHERING … → SYNTHESIS → COMPLETED
// Gathering fans out into branches that write the living report beside the loop; every phase
// ends with its quality gate (and a reflection only when it matters). All progress lives in
// state (the phase, marks on sources and findings), so a new run resumes exactly here.
import { analysisGate, gatheringGate, synthesisGate } from '../../research/gates';
import type { MindPhase, ResearchPlan, Source } from '../../domain/types';
import { terms } from '../../report/words';
import { normalizeQuery } from '../../domain/text';
import { continueAsNewIfDue } from '../runs';
import type { ResearchSession } from '../session';
import { analyzeBatch } from './analysis';
import { drainReport, gatherRound } from './gather';
import { noRoomToSearch, refine, refinedQueries } from './mind';
import { afterPhase, pauseAfter, pauseIfDue, retryByRule } from './oversight';
import { persistSession } from './persist';
import { patchReport } from './report';
import { rateSources } from './sources';

export async function runResearchLoop(s: ResearchSession): Promise<void> {
  const mind = s.mind;
  if (s.state.iteration === 0) startFirstIteration(s);
  if (mind.phase === 'PLANNING') mind.phase = 'GATHERING';
  for (;;) {
    await pauseIfDue(s);
    if (!visit(s, mind.phase)) mind.phase = 'COMPLETED';
    const phase: MindPhase = mind.phase;
    if (phase === 'COMPLETED' || phase === 'ABORTED' || phase === 'PLANNING') break;
    mind.phase = await PHASES[phase](s);
    await persistSession(s);
    await continueAsNewIfDue(s, () => drainReport(s));
  }
  await drainReport(s);
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
    await persistSession(s);
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
  await drainReport(s);
  const unreported = () => st.findings.filter((f) => !f.reported).slice(0, chunk);
  for (let findings = unreported(); findings.length > 0; findings = unreported()) {
    await patchReport(s, findings);
    for (const f of findings) f.reported = true;
    await persistSession(s);
  }
  await fillEmptySections(s);
  const gate = synthesisGate(st.report_shape ?? { chars: st.report_chars, sections: 0, sections_with_content: 0 });
  afterPhase(s, 'synthesis', gate, { report_chars: st.report_chars });
  pauseAfter(s, 'synthesis');
  return 'COMPLETED';
}

/**
 * Outline sections nothing was written into are read for before they are declared gaps: the
 * on-topic sources already read are analysed once more for those sections (the findings so far
 * given as known, so only what is new comes back), and what comes back is written there.
 */
async function fillEmptySections(s: ResearchSession): Promise<void> {
  const st = s.state;
  const empty = st.report_shape?.empty_sections ?? [];
  const read = st.sources.filter((x) => x.status === 'fetched' && x.text_file_id && !x.skipped_off_topic);
  if (!empty.length || !read.length || st.mind.sections_filled) return;
  st.mind.sections_filled = true;
  const sources = rankFor(empty.join(' '), read).slice(0, s.settings.batch_size);
  const ask = empty.map((section) => `The report's section "${section}" has nothing yet: find what these sources say about it.`);
  const findings = await analyzeBatch(s, sources.map((x) => ({ ...x, analyzed: false })), st.findings.map((f) => f.content), ask);
  s.decide({ agent: 'writer', action: findings.length ? 'sections_filled' : 'sections_left_empty', rationale: `${empty.map((e) => `"${e}"`).join(', ')}: ${findings.length} findings from ${sources.map((x) => x.id).join(', ')}`, inputs: { sections: empty }, outputs: { findings: findings.length } });
  if (findings.length) await patchReport(s, findings, empty);
  await persistSession(s);
}
/** Sources ranked by how many of a section title's words their title and snippet share. */
function rankFor(section: string, sources: Source[]): Source[] {
  const wanted = new Set(terms(section));
  const score = (x: Source) => terms(`${x.title} ${x.snippet} ${x.query}`).filter((t) => wanted.has(t)).length;
  return [...sources].sort((a, b) => score(b) - score(a));
}
