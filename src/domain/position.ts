// Where a session is: its position, stored once, and what every front end shows of it, derived
// from it by one pure function. The workflow's top-level loop (src/workflows/deep-research.ts) is
// the only code that moves the position; the status and phase that queries, the server, the CLI,
// the web app and the search attributes show come from `describe` below, never from a field of
// their own.
//
//   topic → plan → research(phase) ⇄ panel(answers → synthesis) → verify → review → ended(outcome)
//                   ↑_______________ the reviewer's feedback (REFINEMENT) _____|
//   any place of these → waiting(kind, in that place) → back to that place with the answer
import type { ResearchPhase, ResearchStatus } from './names';
import { type SessionStep, WAITS, type WaitKind } from './steps';

/** The research loop's phases: a round is GATHERING → ANALYSIS → REFINEMENT, then another round or SYNTHESIS → COMPLETED. */
export const LOOP_PHASES = ['GATHERING', 'ANALYSIS', 'REFINEMENT', 'SYNTHESIS', 'COMPLETED'] as const;
export type LoopPhase = (typeof LOOP_PHASES)[number];

/** How a session ends. */
export const OUTCOMES = ['completed', 'failed', 'cancelled', 'rejected', 'expired', 'timed_out'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** A place in the session's life where work is done: a step, with its part where it has parts. */
export type Place =
  | { at: 'topic' }
  | { at: 'plan' }
  | { at: 'research'; phase: LoopPhase }
  | { at: 'panel'; part: 'answers' | 'synthesis' }
  | { at: 'verify' }
  | { at: 'review' };

/** A wait for a person, in a place: the run ends, and the next comes back to that place with the answer. */
export interface Waiting {
  for: WaitKind;
  /** When the wait began (workflow time, ISO). */
  since: string;
  /** Epoch ms when the wait gives up (absent: until answered). */
  until?: number;
  /** Top-ups received before the wait began (a budget wait ends at the next one). */
  topups_seen?: number;
  /** Set by the waiting run when `until` passed without an answer. */
  expired?: boolean;
}

/** The session's position: at work in a place, waiting in one, or ended (keeping the place it ended in: a resume goes on from there). */
export type Position = Place | { at: 'waiting'; wait: Waiting; in: Place } | { at: 'ended'; outcome: Outcome; in: Place };

/** What one branch of a research round is doing; each branch writes only its own. */
export const BRANCH_STAGES = ['searching', 'fetching', 'analyzing', 'done'] as const;
export type BranchStage = (typeof BRANCH_STAGES)[number];
/** The stages a branch is at work in, in the order a branch goes through them. */
const AT_WORK = ['searching', 'fetching', 'analyzing'] as const;

/** What every front end shows of a position. */
export interface Described {
  status: ResearchStatus;
  phase: ResearchPhase;
  /** The step of the session's life the position is in (a wait's or an end's too). */
  step: SessionStep;
  /** The research loop's phase, while the position is in research. */
  loop?: LoopPhase;
  /** What the session waits for, while it waits. */
  waiting_for?: WaitKind;
}

/** The place a position is in: itself, or the place a wait or an end is in. */
export const placeOf = (p: Position): Place => (p.at === 'waiting' || p.at === 'ended' ? p.in : p);

/** The wait a position is in, if it waits. */
export const waitOf = (p: Position): Waiting | undefined => (p.at === 'waiting' ? p.wait : undefined);

export const isEnded = (p: Position): p is Extract<Position, { at: 'ended' }> => p.at === 'ended';

/**
 * Status and phase for every front end. `branches`: the stages of the research round's branches
 * in flight; while gathering, the phase is the stage the slowest of them is in (the round moves on
 * once every branch is past it), so parallel branches never overwrite one another's.
 *
 *   position                 status                       phase
 *   topic                    awaiting_topic               planning
 *   plan                     planning                     planning
 *   research(GATHERING)      running                      slowest branch's stage (searching before any)
 *   research(ANALYSIS, REFINEMENT)  running               analyzing
 *   research(SYNTHESIS, COMPLETED)  running               updating_report
 *   panel(answers)           processing                   panel_answers
 *   panel(synthesis)         synthesizing                 synthesizing
 *   verify, review           verifying                    verifying
 *   waiting(kind, place)     the wait's (awaiting_…)      the wait's, else the place's
 *   ended(outcome)           the outcome                  done
 */
export function describe(position: Position, branches: readonly BranchStage[] = []): Described {
  if (position.at === 'ended') return { ...describe(position.in), status: position.outcome, phase: 'done' };
  if (position.at === 'waiting') {
    const rule = WAITS[position.wait.for];
    const inside = describe(position.in, branches);
    return { ...inside, status: rule.status, phase: rule.phase ?? inside.phase, waiting_for: position.wait.for };
  }
  switch (position.at) {
    case 'topic':
      return { status: 'awaiting_topic', phase: 'planning', step: 'topic' };
    case 'plan':
      return { status: 'planning', phase: 'planning', step: 'plan' };
    case 'research':
      return { status: 'running', phase: researchPhase(position.phase, branches), step: 'research', loop: position.phase };
    case 'panel':
      return position.part === 'answers' ? { status: 'processing', phase: 'panel_answers', step: 'panel' } : { status: 'synthesizing', phase: 'synthesizing', step: 'panel' };
    case 'verify':
      return { status: 'verifying', phase: 'verifying', step: 'verify' };
    case 'review':
      return { status: 'verifying', phase: 'verifying', step: 'review' };
  }
}

function researchPhase(loop: LoopPhase, branches: readonly BranchStage[]): ResearchPhase {
  if (loop === 'GATHERING') return AT_WORK.find((stage) => branches.includes(stage)) ?? (branches.length ? 'analyzing' : 'searching');
  if (loop === 'ANALYSIS' || loop === 'REFINEMENT') return 'analyzing';
  return 'updating_report';
}

/** Where the research loop is, as the supervisor's line names it: not begun (PLANNING), its phase, or past it (COMPLETED). */
export function loopProgress(position: Position): 'PLANNING' | LoopPhase {
  const place = placeOf(position);
  if (place.at === 'topic' || place.at === 'plan') return 'PLANNING';
  return place.at === 'research' ? place.phase : 'COMPLETED';
}

/** The place a session starts in: asking for its question, or planning. */
export const startingPlace = (query: string): Place => (query.trim() ? { at: 'plan' } : { at: 'topic' });

/**
 * Where a session that stopped early (cancelled, timed out, failed) goes on from when it is resumed
 * or retried: the plan's steps where it stopped; past approval, research (which reopens the closed
 * report and writes on from it, then verifies and reviews it again): at the loop phase it stopped
 * in, or synthesis when its research was done.
 */
export function placeAfterStop(position: Position): Place {
  const place = placeOf(position);
  if (place.at === 'topic' || place.at === 'plan') return place;
  if (place.at === 'research' && place.phase !== 'COMPLETED') return place;
  return { at: 'research', phase: 'SYNTHESIS' };
}
