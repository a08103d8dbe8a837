// A record of what an agent decided and why, kept in the research state for auditing. The caller
// passes the timestamp: inside a workflow, time must come from the workflow clock.
import type { AgentDecision } from '../domain/types';
import type { GateResult, IterationDecision } from './gates';

export type AgentName = 'supervisor' | 'planner' | 'gatherer' | 'analyzer' | 'synthesizer' | 'refiner' | 'critic';
export type { AgentDecision };

/**
 * The decision a gate stands for: action `<phase>_gate_passed` or `<phase>_gate_failed`, the
 * metrics as inputs. Gates are judged by the critic unless another agent is named. For the
 * refinement gate "passed" means another round is worth running (see refinementGate).
 */
export function decisionFromGate(gate: GateResult, timestamp: string, agent: AgentName = 'critic'): AgentDecision {
  return {
    agent,
    action: `${gate.phase}_gate_${gate.passed ? 'passed' : 'failed'}`,
    rationale: gate.failures.length ? gate.failures.join('; ') : passedRationale(gate),
    inputs: { phase: gate.phase, metrics: { ...gate.metrics } },
    outputs: { passed: gate.passed, failures: [...gate.failures] },
    timestamp,
  };
}

function passedRationale(gate: GateResult): string {
  return gate.phase === 'refinement' ? 'another round is worth running' : `all ${gate.phase} checks passed`;
}

/** The supervisor's choice between another round and finishing (from decideIteration). */
export function decisionFromIteration(
  decision: IterationDecision,
  inputs: { iteration: number; maxIterations: number; openGaps: number; budgetExhausted: boolean },
  timestamp: string,
): AgentDecision {
  return {
    agent: 'supervisor',
    action: decision.action,
    rationale: decision.rationale,
    inputs: { ...inputs },
    outputs: { action: decision.action },
    timestamp,
  };
}
