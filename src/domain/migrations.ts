// State versions. A session's state travels between builds only as a snapshot (continue-as-new at
// every wait, retry, resume, adoption of a session whose build is gone), so an older build's state
// is upgraded here, by one plain function per version, never by branches in the workflow.
// Each function records what its version introduced; it must not change once released.
import type { MindState } from './mind';
import type { ResearchState } from './types';
import type { LoopPhase, Outcome, Place, Position, Waiting } from './position';
import { isTerminal, type ResearchPhase, type ResearchStatus } from './names';
import { type SessionStep, waitOf, waitSeconds } from './steps';
import type { ResearchSettings } from './settings';

/** The state shape this build writes. */
export const STATE_VERSION = 12;

/** The research mind of a session that has not researched yet. */
export function freshMind(startedMs: number): MindState {
  return { phase_visits: {}, reflexion_revisions: 0, review_rounds: 0, agent_decisions: [], gates: [], guidance: [], budget_topups: {}, started_ms: startedMs, contradictions: [] };
}

type Raw = Record<string, unknown> & { settings: Record<string, unknown> };
type Migration = (state: Raw) => Raw;

const MIGRATIONS: Record<number, Migration> = {
  // v2 added token budgets (content_fidelity, optional) and v3 provider chains (settled on resume):
  // nothing a v1 or v2 state must gain.
  1: (s) => s,
  2: (s) => s,
  3: addSupervisor,
  4: addParallelBranches,
  5: addRelevanceAndPlanLimit,
  // v7 (pipelined branches) and v8 (bookkeeping as activities) only set "which loop" flags.
  6: (s) => s,
  7: (s) => s,
  8: toOneEngine,
  9: recordStopsAndStatedGaps,
  10: toExplicitSteps,
  11: toOnePosition,
};

/** The version a state was written by; states before v9 carry no number and are told by their marks. */
export function stateVersionOf(state: Record<string, unknown>): number {
  if (typeof state.state_version === 'number') return state.state_version;
  const settings = (state.settings ?? {}) as Record<string, unknown>;
  if ('local_bookkeeping' in state) return 8;
  if ('pipelined' in state) return 7;
  if ('max_sub_queries' in settings || 'min_relevance' in settings) return 6;
  if ('parallel_branches' in state || 'max_concurrency' in settings) return 5;
  if ('mind' in state || 'supervised' in state) return 4;
  if ('providers' in state) return 3;
  if ('content_fidelity' in state || 'content_allocation_metadata' in state) return 2;
  return 1;
}

/** Any recorded state, upgraded to this build's shape. A state from a newer build is refused. */
export function migrateState(input: unknown): ResearchState {
  if (!input || typeof input !== 'object' || typeof (input as Raw).settings !== 'object') throw new Error('not a research state');
  const from = stateVersionOf(input as Raw);
  if (from > STATE_VERSION) throw new Error(`state version ${from} is newer than this build understands (${STATE_VERSION}): run a newer worker`);
  let state = { ...(input as Raw), settings: { ...(input as Raw).settings } };
  for (let version = from; version < STATE_VERSION; version++) state = MIGRATIONS[version](state);
  return state as unknown as ResearchState;
}

/** v4: the supervisor's phase machine, its settings, and progress marks on sources and findings. */
function addSupervisor(s: Raw): Raw {
  const researching = startedResearch(s);
  if (!s.mind) {
    // The serial loop analysed and wrote each batch as soon as it was fetched.
    s.sources = (s.sources as Record<string, unknown>[]).map((x) => (x.status === 'fetched' ? { ...x, analyzed: true } : x));
    s.findings = (s.findings as Record<string, unknown>[]).map((f) => ({ ...f, reported: true }));
    s.mind = { ...freshMind(Date.parse(String(s.updated_at)) || 0), phase: researching ? 'GATHERING' : 'PLANNING' };
  }
  s.settings = {
    reflexion: true,
    max_reflexion_revisions: 2,
    reflections: true,
    pause_for_guidance: false,
    guidance_wait_seconds: 600,
    review_final_report: false,
    max_review_rounds: 2,
    review_timeout_seconds: 7 * 24 * 3600,
    check_links: true,
    check_claims: true,
    max_phase_visits: 40,
    budget: {},
    ...s.settings,
  };
  return s;
}

/** v5: research branches and the session-wide cap on model calls. */
function addParallelBranches(s: Raw): Raw {
  s.settings = { max_concurrency: 4, max_model_calls_in_flight: 4, ...s.settings };
  return s;
}

/** v6: the relevance gate and the plan's sub-question limit (2–5). */
function addRelevanceAndPlanLimit(s: Raw): Raw {
  const limit = Math.min(5, Math.max(2, Number(s.settings.max_sub_queries ?? 5)));
  s.settings = { min_relevance: 0.2, ...s.settings, max_sub_queries: limit };
  return s;
}

/**
 * v9, one engine: no "which loop am I" flags, the report lives in the artifact store (its text is
 * carried as a seed until research resumes and stores it), messages wait in an inbox, a wait for
 * a person is named in state.
 */
function toOneEngine(s: Raw): Raw {
  const { supervised: _1, parallel_branches: _2, lean_oversight: _3, pipelined: _4, local_bookkeeping: _5, read_input_contexts: _6, report_markdown, ...rest } = s;
  const out: Raw = { ...rest, state_version: 9, inbox: [], report_chars: 0, approved: startedResearch(s) };
  const text = typeof report_markdown === 'string' ? report_markdown : '';
  if (text) {
    out.report_seed = text;
    out.report_chars = text.length;
  }
  const status = s.status as ResearchStatus;
  const kind = waitOf(status);
  if (kind) {
    const since = String(s.updated_at);
    const seconds = Number(waitSeconds(kind, s.settings as unknown as ResearchSettings));
    const waiting: WaitingV11 = { for: kind, since, ...(Number.isFinite(seconds) ? { until: (Date.parse(since) || 0) + seconds * 1000 } : {}) };
    if (['budget', 'guidance', 'confirmation'].includes(kind)) Object.assign(waiting, { resume_status: 'running', resume_phase: 'searching' });
    out.waiting = waiting;
  }
  // A report waiting for review had been verified; any other is verified again at the end.
  if (status === 'awaiting_review') out.verified = true;
  return out;
}

/** Research had begun: the first iteration's queries were set (serial loop) or sources exist. */
function startedResearch(s: Raw): boolean {
  return Number(s.iteration ?? 0) > 0 || ((s.sources as unknown[] | undefined)?.length ?? 0) > 0;
}

/**
 * v10: a run that stopped early is recorded in `stops` (what a resumed run reopens and reports on),
 * and a finished report's sections stated as gaps in `stated_gaps` (what an enhanced version
 * reopens). A v9 snapshot read from the session store carries its report's text: both are read
 * from it (v9 builds wrote these lines in English), and the text is dropped (the report is in the
 * artifact store). Without the text (a state carried by continue-as-new) nothing is known to add.
 */
function recordStopsAndStatedGaps(s: Raw): Raw {
  const { report_markdown, ...out } = s;
  out.state_version = 10;
  const sections = typeof report_markdown === 'string' ? sectionsLeading(report_markdown) : undefined;
  if (!sections) return out;
  const status = s.status as ResearchStatus;
  if (['cancelled', 'timed_out', 'failed'].includes(status) && !out.stops) {
    const sources = (s.sources as { status?: string; analyzed?: boolean; skipped_off_topic?: boolean }[] | undefined) ?? [];
    out.stops = [
      {
        status,
        ...(typeof s.reason === 'string' ? { reason: s.reason } : {}),
        at: String(s.updated_at),
        sources_read: sources.filter((x) => x.status === 'fetched' && x.analyzed && !x.skipped_off_topic).length,
        findings: ((s.findings as unknown[] | undefined) ?? []).length,
        unwritten: sections.filter((x) => x.lead.startsWith('**Not written:**')).map((x) => x.title),
      },
    ];
  }
  if (status === 'completed' && !out.stated_gaps) out.stated_gaps = sections.filter((x) => x.lead.startsWith('**Gap:**')).map((x) => x.title);
  return out;
}

/** Each "## " section's title and the first line of its body. */
function sectionsLeading(markdown: string): { title: string; lead: string }[] {
  return markdown
    .split(/^## /m)
    .slice(1)
    .map((part) => {
      const [title, ...body] = part.split('\n');
      return { title: title.trim(), lead: body.join('\n').trim().split('\n')[0] ?? '' };
    });
}

/**
 * v11, explicit steps: where the session is in its life is `step`, read here once from the v10
 * marks (approved, verified, the mind's phase, the wait); `approved` goes. A pause for guidance that
 * was due but not yet begun (pause_after without a wait) becomes that wait.
 */
function toExplicitSteps(s: Raw): Raw {
  const { approved, report_markdown: _text, ...out } = s;
  out.state_version = 11;
  const mind = { ...(s.mind as Record<string, unknown>) };
  const pauseAfter = mind.pause_after;
  delete mind.pause_after;
  out.mind = mind;
  const waiting = s.waiting as WaitingV11 | undefined;
  out.step = stepOfV10(s, approved === true, waiting);
  if (typeof pauseAfter === 'string' && !waiting && !isTerminal(String(s.status))) {
    const since = String(s.updated_at);
    const pause: WaitingV11 = { for: 'guidance', since, until: (Date.parse(since) || 0) + Number(s.settings.guidance_wait_seconds ?? 600) * 1000, resume_status: s.status as ResearchStatus, resume_phase: s.phase as ResearchPhase, topups_seen: Number(s.topups_received ?? 0) };
    out.waiting = pause;
  }
  return out;
}

function stepOfV10(s: Raw, approved: boolean, waiting: WaitingV11 | undefined): SessionStep {
  if (!approved) return s.initial_query ? 'plan' : 'topic';
  if (waiting?.for === 'review' || s.verified === true) return 'review';
  const phase = (s.mind as { phase?: string } | undefined)?.phase;
  if (s.panel && (waiting?.for === 'confirmation' || phase === 'COMPLETED' || phase === 'ABORTED')) return 'panel';
  return 'research';
}

/** The wait as v9–v11 kept it: beside the status, with the status and phase to go back to. */
type WaitingV11 = Waiting & { resume_status?: ResearchStatus; resume_phase?: ResearchPhase };

/**
 * v12, one position: where the session is was kept in five fields (status, phase, step, the mind's
 * phase, the wait); it is `position` now, read here once from them, and status and phase are
 * derived from it (src/domain/position.ts). A wait keeps its own details, without the status to
 * go back to (the place it waits in says it).
 */
function toOnePosition(s: Raw): Raw {
  const { status, phase: _phase, step, waiting, ...out } = s;
  out.state_version = 12;
  const { phase: mindPhase, ...mind } = (s.mind ?? {}) as Record<string, unknown>;
  out.mind = mind;
  const wait = waiting as WaitingV11 | undefined;
  const place = placeOfV11(String(step), String(mindPhase), String(status), wait);
  let position: Position = place;
  if (isTerminal(String(status))) position = { at: 'ended', outcome: status as Outcome, in: place };
  else if (wait) {
    const { resume_status: _rs, resume_phase: _rp, ...details } = wait;
    position = { at: 'waiting', wait: details, in: place };
  }
  out.position = position;
  return out;
}

function placeOfV11(step: string, mindPhase: string, status: string, wait: WaitingV11 | undefined): Place {
  switch (step) {
    case 'topic':
    case 'plan':
    case 'verify':
    case 'review':
      return { at: step };
    case 'panel':
      return { at: 'panel', part: status === 'synthesizing' || wait?.resume_status === 'synthesizing' ? 'synthesis' : 'answers' };
    default:
      return { at: 'research', phase: loopPhaseOfV11(mindPhase) };
  }
}

/** The mind's phase as a loop phase: research not yet begun begins by gathering; an aborted one had finished. */
const loopPhaseOfV11 = (phase: string): LoopPhase => (phase === 'PLANNING' || phase === 'undefined' ? 'GATHERING' : phase === 'ABORTED' ? 'COMPLETED' : (phase as LoopPhase));

