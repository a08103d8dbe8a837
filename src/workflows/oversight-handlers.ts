// Handlers for steering a running session: guidance, continue, budget top-ups and the final review.
// Signals and validated updates share names; an invalid signal is logged and ignored.
import { setHandler } from '@temporalio/workflow';
import {
  continueSignal,
  guidanceSignal,
  guidanceUpdate,
  reviewReportSignal,
  reviewReportUpdate,
  topUpSignal,
  topUpUpdate,
  type GuidanceArgs,
  type ReviewArgs,
  type TopUpArgs,
} from './messages';
import { invalidArgument, wrongState } from './refusals';
import type { ResearchSession } from './session';
import type { BudgetLimits } from '../domain/types';

const MAX_GUIDANCE_CHARS = 4_000;
const MAX_PENDING_GUIDANCE = 20;
const BUDGET_KEYS: (keyof BudgetLimits)[] = ['tokens', 'cost_usd', 'searches', 'fetches', 'wall_seconds'];

export function registerOversightHandlers(s: ResearchSession): void {
  const guarded = <A>(name: string, validate: (args: A) => void, apply: (args: A) => void) => ({
    signal: (args: A) => {
      try {
        validate(args);
      } catch (err) {
        s.warn(`ignored ${name} signal: ${(err as Error).message}`);
        return;
      }
      apply(args);
    },
    update: (args: A) => {
      apply(args);
      return { status: s.state.status };
    },
  });

  const guidance = guarded<GuidanceArgs>('guidance', (a) => validateGuidance(s, a), (a) => s.addGuidance(a.text.trim()));
  setHandler(guidanceSignal, guidance.signal);
  setHandler(guidanceUpdate, guidance.update, { validator: (a) => validateGuidance(s, a) });

  setHandler(continueSignal, () => {
    s.continueRequested = true;
  });

  const topUp = guarded<TopUpArgs>('topUp', (a) => validateTopUp(s, a), (a) => s.topUp(a));
  setHandler(topUpSignal, topUp.signal);
  setHandler(topUpUpdate, topUp.update, { validator: (a) => validateTopUp(s, a) });

  const review = guarded<ReviewArgs>('reviewReport', (a) => validateReview(s, a), (a) => s.reviews.push({ action: a.action, feedback: a.feedback?.trim() }));
  setHandler(reviewReportSignal, review.signal);
  setHandler(reviewReportUpdate, review.update, { validator: (a) => validateReview(s, a) });
}

function expectRunning(s: ResearchSession): void {
  if (s.isTerminal()) throw wrongState(`research ${s.id} is already ${s.state.status}`);
}

function validateGuidance(s: ResearchSession, args: GuidanceArgs): void {
  expectRunning(s);
  if (typeof args?.text !== 'string' || !args.text.trim()) throw invalidArgument('guidance text is empty', 'text');
  if (args.text.length > MAX_GUIDANCE_CHARS) throw invalidArgument(`guidance is longer than ${MAX_GUIDANCE_CHARS} characters`, 'text');
  const pending = s.state.mind?.guidance.filter((g) => !g.applied_to).length ?? 0;
  if (pending >= MAX_PENDING_GUIDANCE) throw wrongState(`${MAX_PENDING_GUIDANCE} guidance notes are already waiting`);
}

function validateTopUp(s: ResearchSession, args: TopUpArgs): void {
  expectRunning(s);
  const given = BUDGET_KEYS.filter((k) => args?.[k] !== undefined);
  if (given.length === 0) throw invalidArgument(`a top-up names at least one of ${BUDGET_KEYS.join(', ')}`, 'tokens');
  for (const k of given) {
    const v = args[k] as unknown;
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) throw invalidArgument(`top-up "${k}" must be a positive number`, k);
  }
}

function validateReview(s: ResearchSession, args: ReviewArgs): void {
  if (s.state.status !== 'awaiting_review') throw wrongState(`research ${s.id} is ${s.state.status}, not awaiting review`);
  if (!args || !['accept', 'reject', 'feedback'].includes(args.action)) throw invalidArgument('action must be accept, reject or feedback', 'action');
  if (args.action === 'feedback' && (typeof args.feedback !== 'string' || !args.feedback.trim())) throw invalidArgument('feedback is empty', 'feedback');
  if ((args.feedback?.length ?? 0) > MAX_GUIDANCE_CHARS) throw invalidArgument(`feedback is longer than ${MAX_GUIDANCE_CHARS} characters`, 'feedback');
}
