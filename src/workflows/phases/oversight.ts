// What happens between phases: the quality gate is recorded; a gate that passes is decided by rule
// alone, and the supervisor reflects when a gate fails, guidance is waiting, or an iteration ends
// (and may ask to retry a failed phase once). With pause_for_guidance the session then pauses
// for a person. No search or fetch ability here: planning uses this module before approval.
import { decisionFromGate } from '../../research/decisions';
import type { GateResult } from '../../research/gates';
import { model } from '../activities';
import { awaitPerson } from '../runs';
import type { ResearchSession } from '../session';
import { callModel } from './providers';

/**
 * Records the gate and, when it is worth a model call, the supervisor's reflection. Returns the
 * supervisor's guidance when it asks to retry this failed phase (at most once per phase and
 * iteration), else undefined.
 */
export async function afterPhase(s: ResearchSession, phase: string, gate: GateResult, summary: Record<string, number>, opts: { endOfIteration?: boolean } = {}): Promise<string | undefined> {
  const mind = s.mind;
  const iteration = s.state.iteration;
  mind.gates.push({ phase, iteration, passed: gate.passed, failures: gate.failures });
  if (mind.gates.length > 100) mind.gates.splice(0, mind.gates.length - 100);
  const decision = decisionFromGate(gate, '', 'supervisor');
  const guidanceWaiting = mind.guidance.some((g) => !g.applied_to);
  const reflect = s.settings.reflections && (!gate.passed || guidanceWaiting || opts.endOfIteration === true);
  const skipped = s.settings.reflections && !reflect ? { reflection: 'skipped by rule: the gate passed and no guidance is waiting' } : {};
  s.decide({ ...decision, inputs: { ...decision.inputs, iteration, ...summary }, outputs: { ...decision.outputs, ...skipped } });
  if (!reflect) return undefined;
  const out = await callModel(s, 'supervisor', (choice) =>
    s.tool(
      'reflect_on_phase',
      { phase, passed: gate.passed, model: choice },
      () => model.reflectOnPhase({ phase: phase as never, summary: { ...summary, ...gate.metrics }, gate: { passed: gate.passed, failures: gate.failures }, guidance: s.takeGuidance(`${phase} reflection`), model: choice }),
      (r) => ({ retry: r.retry, usage: r.usage, ...(r.quality_score !== undefined ? { quality_score: r.quality_score } : {}) }),
    ),
  );
  s.emit('AgentOutput', { role: 'supervisor', phase, reflection: out.reflection, ...(out.quality_score !== undefined ? { quality_score: out.quality_score } : {}) });
  s.decide({
    agent: 'supervisor',
    action: 'assessment',
    rationale: out.reflection,
    inputs: { phase, iteration, gate_passed: gate.passed },
    outputs: { quality_score: out.quality_score ?? null, guidance: out.guidance_for_next_phase },
  });
  const key = `${phase}:${iteration}`;
  const retried = (mind.retried ??= []);
  // A failed refinement gate is how research ends; there is nothing to retry.
  if (gate.passed || !out.retry || phase === 'refinement' || retried.includes(key)) return undefined;
  retried.push(key);
  const retry = out.guidance_for_next_phase || gate.failures.join('; ');
  s.decide({ agent: 'supervisor', action: `retry_${phase}`, rationale: retry, inputs: { failures: gate.failures }, outputs: {} });
  return retry;
}

/** pause_for_guidance: after `phase`, the session pauses (a wait) unless guidance is already waiting. */
export function pauseAfter(s: ResearchSession, phase: string): void {
  if (s.settings.pause_for_guidance) s.mind.pause_after = phase;
}

/** The pause itself, at the top of the loop: until guidance, continue, or guidance_wait_seconds. */
export async function pauseIfDue(s: ResearchSession): Promise<void> {
  const after = s.mind.pause_after;
  if (!after) return;
  if (s.mind.guidance.some((g) => !g.applied_to) && s.state.waiting?.for !== 'guidance') {
    s.mind.pause_after = undefined;
    return;
  }
  if (s.state.waiting?.for !== 'guidance') s.info(`paused after ${after}: send guidance or continue (waiting up to ${s.settings.guidance_wait_seconds} s)`);
  const outcome = await awaitPerson(s, 'guidance', { status: 'awaiting_guidance', timeoutSeconds: s.settings.guidance_wait_seconds });
  if (outcome === 'expired') s.info('no guidance arrived: continuing');
  s.mind.pause_after = undefined;
}
