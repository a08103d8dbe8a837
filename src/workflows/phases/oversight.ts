// What happens between phases. Every gate and every choice lands in the decision log, but a model
// call stays on the path only where what follows depends on it: whether a failed phase runs again
// is decided by rule (a round that cannot change the failing criterion is not run: the report
// states the shortfall instead), and the supervisor's reflection, which can only add advice, runs
// beside the next step. It reflects when a gate fails, guidance is waiting or an iteration ends,
// never twice on the same unchanged state.
// No search or fetch ability here: planning uses this module before approval.
import { isCancellation } from '@temporalio/workflow';
import type { GatedPhase } from '../../domain/types';
import { decisionFromGate } from '../../research/decisions';
import type { GateResult } from '../../research/gates';
import { model } from '../activities';
import { errorMessage, type ResearchSession } from '../session';
import { callModel, NoLongerWanted } from './providers';

/** Records the gate; starts the supervisor's reflection beside whatever comes next, when it is worth one. */
export function afterPhase(
  s: ResearchSession,
  phase: GatedPhase,
  gate: GateResult,
  summary: Record<string, number>,
  opts: { endOfIteration?: boolean; lastWord?: boolean; noPhaseAfter?: boolean } = {},
): void {
  const mind = s.mind;
  const iteration = s.state.iteration;
  mind.gates.push({ phase, iteration, passed: gate.passed, failures: gate.failures });
  if (mind.gates.length > 100) mind.gates.splice(0, mind.gates.length - 100);
  const decision = decisionFromGate(gate, '', 'supervisor');
  const guidanceWaiting = mind.guidance.some((g) => !g.applied_to);
  const state = stateKey(s);
  const worth = !gate.passed || guidanceWaiting || opts.endOfIteration === true;
  const unchanged = worth && mind.last_reflected === state && !guidanceWaiting;
  // Advice with no phase left to read it would only delay the report.
  const unread = worth && opts.noPhaseAfter === true && !guidanceWaiting;
  const reflect = s.settings.reflections && worth && !unchanged && !unread;
  const why = unchanged ? 'nothing changed since the last reflection' : unread ? 'no phase is left to read its advice' : 'the gate passed and no guidance is waiting';
  const skipped = !s.settings.reflections || reflect ? {} : { reflection: `skipped by rule: ${why}` };
  s.decide({ ...decision, inputs: { ...decision.inputs, iteration, ...summary }, outputs: { ...decision.outputs, ...skipped } });
  if (!reflect) return;
  mind.last_reflected = state;
  s.runBeside(reflectOn(s, phase, gate, summary, opts.lastWord === true));
}

/**
 * The supervisor's assessment: advice for the next refiner or critic, and a quality score. It reads
 * the user's pending guidance; when nothing after it plans research (`lastWord`), it takes it.
 */
async function reflectOn(s: ResearchSession, phase: GatedPhase, gate: GateResult, summary: Record<string, number>, lastWord: boolean): Promise<void> {
  const iteration = s.state.iteration;
  const reads = s.adviceReads;
  try {
    const out = await callModel(s, 'supervisor', (choice) =>
      s.tool(
        'reflect_on_phase',
        { phase, passed: gate.passed, model: choice },
        () => model.reflectOnPhase({ phase, summary: { ...summary, ...gate.metrics }, gate: { passed: gate.passed, failures: gate.failures }, guidance: lastWord ? s.takeGuidance(`${phase} reflection`) : pendingGuidance(s), model: choice }),
        (r) => ({ retry: r.retry, usage: r.usage, ...(r.quality_score !== undefined ? { quality_score: r.quality_score } : {}) }),
      ),
      // Advice is for the next critic or refiner: once they started (or are next), it would come too late.
      { background: true, wanted: () => lastWord || s.adviceReads === reads },
    );
    s.emit('AgentOutput', { role: 'supervisor', phase, reflection: out.reflection, ...(out.quality_score !== undefined ? { quality_score: out.quality_score } : {}) });
    if (out.guidance_for_next_phase) s.mind.supervisor_advice = out.guidance_for_next_phase;
    s.decide({
      agent: 'supervisor',
      action: 'assessment',
      rationale: out.reflection,
      inputs: { phase, iteration, gate_passed: gate.passed },
      outputs: { quality_score: out.quality_score ?? null, guidance: out.guidance_for_next_phase },
    });
  } catch (err) {
    if (err instanceof NoLongerWanted) {
      s.decide({ agent: 'supervisor', action: 'reflection_skipped', rationale: `no model slot was free before the phase it would advise began (after ${phase})`, inputs: { phase, iteration }, outputs: {} });
      return;
    }
    // Advice that does not come (a failed call, a spent budget) is no reason to stop the research.
    if (isCancellation(err)) throw err;
    s.warn(`the supervisor's reflection after ${phase} did not run: ${errorMessage(err)}`);
  }
}

/** The user's guidance the supervisor may read; it is taken by the next refiner or critic. */
function pendingGuidance(s: ResearchSession): string[] {
  return s.mind.guidance.filter((g) => !g.applied_to).map((g) => g.text);
}

/** What a reflection would look at: unchanged, it has nothing new to say. */
function stateKey(s: ResearchSession): string {
  const st = s.state;
  const fetched = st.sources.filter((x) => x.status === 'fetched').length;
  const open = st.gaps.filter((g) => !g.addressed).length;
  return `${st.iteration}/${fetched}/${st.findings.length}/${open}/${s.mind.reflexion_revisions}`;
}

/**
 * A failed gate's outcome, by rule: the failures another round could change are worth that round
 * (once per phase and iteration, while search and sources are left); the rest are shortfalls the
 * report states. Returns whether to run the phase again.
 */
export function retryByRule(s: ResearchSession, phase: GatedPhase, gate: GateResult, roomLeft: string | undefined): boolean {
  if (gate.passed) return false;
  const mind = s.mind;
  const key = `${phase}:${s.state.iteration}`;
  const retried = (mind.retried ??= []);
  const unfixable = gate.failures.filter((f) => !gate.fixable.includes(f));
  if (unfixable.length) {
    s.decide({ agent: 'supervisor', action: `${phase}_shortfall_stated`, rationale: `another round cannot change this, so none is run; the report states it: ${unfixable.join('; ')}`, inputs: { iteration: s.state.iteration }, outputs: { shortfalls: unfixable } });
  }
  if (!gate.fixable.length) return false;
  const why = retried.includes(key) ? `${phase} already ran again this iteration` : roomLeft;
  if (why) {
    s.decide({ agent: 'supervisor', action: `${phase}_retry_declined`, rationale: `${gate.fixable.join('; ')} — but ${why}`, inputs: { iteration: s.state.iteration }, outputs: {} });
    return false;
  }
  retried.push(key);
  s.decide({ agent: 'supervisor', action: `retry_${phase}`, rationale: `another round can change this: ${gate.fixable.join('; ')}`, inputs: { failures: gate.fixable }, outputs: {} });
  return true;
}
