// A session's life as steps, and the waits for a person between them. Where a session is among
// them is its position (./position.ts); the workflow's top-level loop runs the step of the place
// it is in, and a step says where the session goes next: another place, a wait (the run ends and
// the next one comes back to the same place with the answer) or its end.
import type { ResearchPhase, ResearchStatus } from './names';
import type { ResearchSettings } from './settings';

/**
 *   topic → plan → research ⇄ (panel) → verify → review → end
 *                     ↑___________ reviewer's feedback ___|
 */
export const SESSION_STEPS = ['topic', 'plan', 'research', 'panel', 'verify', 'review'] as const;
export type SessionStep = (typeof SESSION_STEPS)[number];

/** What a session waits for from a person. Each wait ends the run (continue-as-new): a version boundary. */
export type WaitKind = 'topic' | 'clarification' | 'approval' | 'confirmation' | 'budget' | 'guidance' | 'review';

/** The kinds of message a person's answer is kept as in the session's inbox. */
export type InboxKind = 'approve' | 'reject' | 'answer' | 'revise' | 'topic' | 'confirm' | 'review' | 'continue';

interface WaitRule {
  /** The session's status while it waits. */
  status: ResearchStatus;
  /** Its phase while it waits (absent: the phase it was in). */
  phase?: ResearchPhase;
  /** The setting that says how long the wait lasts (absent: until answered). */
  timeout?: 'approval_timeout_seconds' | 'review_timeout_seconds' | 'guidance_wait_seconds';
  /** The messages that answer it (guidance and top-ups end theirs without one). */
  answers: InboxKind[];
}

export const WAITS: Record<WaitKind, WaitRule> = {
  topic: { status: 'awaiting_topic', phase: 'planning', timeout: 'approval_timeout_seconds', answers: ['topic'] },
  clarification: { status: 'awaiting_clarification', phase: 'awaiting_clarification', timeout: 'approval_timeout_seconds', answers: ['answer', 'reject'] },
  approval: { status: 'awaiting_approval', phase: 'awaiting_approval', timeout: 'approval_timeout_seconds', answers: ['approve', 'reject', 'revise'] },
  confirmation: { status: 'awaiting_confirmation', phase: 'panel_answers', answers: ['confirm'] },
  budget: { status: 'awaiting_budget', answers: [] },
  guidance: { status: 'awaiting_guidance', timeout: 'guidance_wait_seconds', answers: ['continue'] },
  review: { status: 'awaiting_review', phase: 'verifying', timeout: 'review_timeout_seconds', answers: ['review'] },
};

/** The wait a status stands for, if it is a waiting one. */
export const waitOf = (status: ResearchStatus): WaitKind | undefined => (Object.keys(WAITS) as WaitKind[]).find((kind) => WAITS[kind].status === status);

/** Seconds a wait lasts under these settings (undefined: until answered). */
export const waitSeconds = (kind: WaitKind, settings: ResearchSettings): number | undefined => {
  const key = WAITS[kind].timeout;
  return key ? settings[key] : undefined;
};
