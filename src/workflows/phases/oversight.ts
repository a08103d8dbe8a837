// What happens between phases: the quality gate is recorded, the supervisor reflects (and may ask
// to retry a failed phase once), and with pause_for_guidance the session waits for a human.
// No search or fetch ability here: planning uses this module before approval.
import { condition } from '@temporalio/workflow';
import { decisionFromGate } from '../../research/decisions';
import type { GateResult } from '../../research/gates';
import { model } from '../activities';
import type { ResearchSession } from '../session';
import { modelCall } from './model-slots';
import { withModelFallback } from './providers';

/**
 * Records the gate and, when it is worth a model call, the supervisor's reflection. Returns the
 * supervisor's guidance when it asks to retry this failed phase (at most once per phase and
 * iteration), else undefined. With lean oversight a passing gate is decided by rule alone; the
 * supervisor reflects when a gate fails, guidance is waiting, or an iteration ends.
 */
export async function afterPhase(
  s: ResearchSession,
  phase: string,
  gate: GateResult,
  summary: Record<string, number>,
  opts: { endOfIteration?: boolean; pause?: boolean } = {},
): Promise<string | undefined> {
  const mind = s.mind();
  const iteration = s.state.iteration;
  mind.gates.push({ phase, iteration, passed: gate.passed, failures: gate.failures });
  if (mind.gates.length > 100) mind.gates.splice(0, mind.gates.length - 100);
  const decision = decisionFromGate(gate, '', 'supervisor');
  const guidanceWaiting = mind.guidance.some((g) => !g.applied_to);
  const reflect = s.settings.reflections !== false && (!s.state.lean_oversight || !gate.passed || guidanceWaiting || opts.endOfIteration === true);
  const skipped = s.settings.reflections !== false && !reflect ? { reflection: 'skipped by rule: the gate passed and no guidance is waiting' } : {};
  s.decide({ ...decision, inputs: { ...decision.inputs, iteration, ...summary }, outputs: { ...decision.outputs, ...skipped } });
  let retry: string | undefined;
  if (reflect) {
    const out = await modelCall(s, () =>
      withModelFallback(s, 'supervisor', (choice) =>
        s.tool(
          'reflect_on_phase',
          { phase, passed: gate.passed, model: choice },
          () => model.reflectOnPhase({ phase: phase as never, summary: { ...summary, ...gate.metrics }, gate: { passed: gate.passed, failures: gate.failures }, guidance: s.takeGuidance(`${phase} reflection`), model: choice }),
          (r) => ({ retry: r.retry, usage: r.usage, ...(r.quality_score !== undefined ? { quality_score: r.quality_score } : {}) }),
        ),
      ),
    );
    s.addModelUsage(out.usage);
    s.emit('AgentOutput', { role: 'supervisor', phase, reflection: out.reflection, ...(out.quality_score !== undefined ? { quality_score: out.quality_score } : {}) });
    if (s.state.lean_oversight) {
      s.decide({
        agent: 'supervisor',
        action: 'assessment',
        rationale: out.reflection,
        inputs: { phase, iteration, gate_passed: gate.passed },
        outputs: { quality_score: out.quality_score ?? null, guidance: out.guidance_for_next_phase },
      });
    }
    const key = `${phase}:${iteration}`;
    const retried = (mind.retried ??= []);
    // A failed refinement gate is how research ends; there is nothing to retry.
    if (!gate.passed && out.retry && phase !== 'refinement' && !retried.includes(key)) {
      retried.push(key);
      retry = out.guidance_for_next_phase || gate.failures.join('; ');
      s.decide({ agent: 'supervisor', action: `retry_${phase}`, rationale: retry, inputs: { failures: gate.failures }, outputs: {} });
    }
  }
  if (opts.pause !== false) await pauseForGuidance(s, phase);
  return retry;
}

/** With pause_for_guidance, waits (bounded) for guidance or a continue signal before the next phase. */
export async function pauseForGuidance(s: ResearchSession, after: string): Promise<void> {
  if (!s.settings.pause_for_guidance) return;
  const pending = () => s.state.mind?.guidance.some((g) => !g.applied_to) ?? false;
  if (pending()) return;
  const resumeAs = s.state.status;
  const phase = s.state.phase;
  s.continueRequested = false;
  s.setStatus('awaiting_guidance');
  s.info(`paused after ${after}: send guidance or continue (waiting up to ${s.settings.guidance_wait_seconds ?? 600} s)`);
  const arrived = await condition(() => pending() || s.continueRequested, (s.settings.guidance_wait_seconds ?? 600) * 1000);
  s.continueRequested = false;
  if (!arrived) s.info('no guidance arrived: continuing');
  s.setStatus(resumeAs, phase);
}
