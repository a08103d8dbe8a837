// What happens between phases: the quality gate is recorded, the supervisor reflects (and may ask
// to retry a failed phase once), and with pause_for_guidance the session waits for a human.
// No search or fetch ability here: planning uses this module before approval.
import { condition } from '@temporalio/workflow';
import { decisionFromGate } from '../../research/decisions';
import type { GateResult } from '../../research/gates';
import { model } from '../activities';
import type { ResearchSession } from '../session';
import { withModelFallback } from './providers';

/**
 * Records the gate and the supervisor's reflection. Returns the supervisor's guidance when it
 * asks to retry this failed phase (at most once per phase and iteration), else undefined.
 */
export async function afterPhase(s: ResearchSession, phase: string, gate: GateResult, summary: Record<string, number>): Promise<string | undefined> {
  const mind = s.mind();
  const iteration = s.state.iteration;
  mind.gates.push({ phase, iteration, passed: gate.passed, failures: gate.failures });
  if (mind.gates.length > 100) mind.gates.splice(0, mind.gates.length - 100);
  const decision = decisionFromGate(gate, '', 'supervisor');
  s.decide({ ...decision, inputs: { ...decision.inputs, iteration, ...summary } });
  let retry: string | undefined;
  if (s.settings.reflections !== false) {
    const out = await withModelFallback(s, 'supervisor', (choice) =>
      s.tool(
        'reflect_on_phase',
        { phase, passed: gate.passed, model: choice },
        () => model.reflectOnPhase({ phase: phase as never, summary: { ...summary, ...gate.metrics }, gate: { passed: gate.passed, failures: gate.failures }, guidance: s.takeGuidance(`${phase} reflection`), model: choice }),
        (r) => ({ retry: r.retry, usage: r.usage }),
      ),
    );
    s.addModelUsage(out.usage);
    s.emit('AgentOutput', { role: 'supervisor', phase, reflection: out.reflection });
    const key = `${phase}:${iteration}`;
    const retried = (mind.retried ??= []);
    if (!gate.passed && out.retry && !retried.includes(key)) {
      retried.push(key);
      retry = out.guidance_for_next_phase || gate.failures.join('; ');
      s.decide({ agent: 'supervisor', action: `retry_${phase}`, rationale: retry, inputs: { failures: gate.failures }, outputs: {} });
    }
  }
  await pauseForGuidance(s, phase);
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
