// The research mind's state (its phase is the session's position, src/domain/position.ts): its gates and decisions, the user's
// guidance and budget top-ups. Part of every session's state.
import type { GatedPhase } from './names';
import type { BudgetLimits } from './settings';

export interface AgentDecision {
  agent: string;
  action: string;
  rationale: string;
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
  timestamp: string;
}

export interface GateRecord {
  phase: GatedPhase;
  iteration: number;
  passed: boolean;
  failures: string[];
}

export interface GuidanceNote {
  text: string;
  received_at: string;
  /** The phase it was injected into; absent while pending. */
  applied_to?: string;
}

export interface MindState {
  phase_visits: Record<string, number>;
  reflexion_revisions: number;
  review_rounds: number;
  agent_decisions: AgentDecision[];
  gates: GateRecord[];
  guidance: GuidanceNote[];
  /** Added by topUp signals on top of settings.budget. */
  budget_topups: BudgetLimits;
  /** Epoch ms when research started, for the wall-time budget. */
  started_ms: number;
  contradictions: { finding_ids: string[]; description: string }[];
  /** "phase:iteration" keys of phases the supervisor already retried once. */
  retried?: string[];
  /** What the critic, the reviewer or the refiner said the next round must address. */
  research_feedback?: string[];
  link_checks?: { url: string; ok: boolean; status?: number; error?: string }[];
  /** Cited DOIs re-resolved at verification; ok false when the resolver no longer knows one. */
  doi_checks?: { doi: string; ok: boolean; status?: number; source_ids: string[] }[];
  unsupported_claims?: { sentence: string; source_ids: string[] }[];
  /** The supervisor's latest advice, for the next refiner or critic (never awaited). */
  supervisor_advice?: string;
  /** What the state looked like at the last reflection: the next one waits for a change. */
  last_reflected?: string;
  /** Empty outline sections were read for once (when no further iteration would follow). */
  sections_filled?: boolean;
  /** What that reading was for and what it found: those findings are written into those sections. */
  section_fill?: { sections: string[]; finding_ids: string[] };
}
