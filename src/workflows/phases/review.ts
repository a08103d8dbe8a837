// The final review (review_final_report): the finished report waits for accept, reject or
// feedback. Feedback becomes a gap and one more supervised pass (bounded), then it asks again.
import type { InboxMessage } from '../../domain/types';
import { awaitPerson } from '../runs';
import type { ResearchSession } from '../session';

export type ReviewOutcome = 'accepted' | 'rejected' | 'another_pass' | 'cancelled';

export async function reviewReport(s: ResearchSession): Promise<ReviewOutcome> {
  const mind = s.mind;
  for (;;) {
    if (!s.settings.review_final_report) return 'accepted';
    if (s.state.waiting?.for !== 'review') s.info('report ready for review: accept, reject, or send feedback');
    const answer = await awaitPerson(s, 'review', { status: 'awaiting_review', phase: 'verifying', timeoutSeconds: s.settings.review_timeout_seconds });
    if (answer === 'cancelled') return 'cancelled';
    if (answer === 'expired' || answer === 'settled') {
      s.decide({ agent: 'supervisor', action: 'review_timed_out', rationale: 'no review arrived in time: the report stands as it is', inputs: {}, outputs: {} });
      return 'accepted';
    }
    const review = answer as Extract<InboxMessage, { kind: 'review' }>;
    if (review.action === 'accept') {
      s.decide({ agent: 'supervisor', action: 'review_accepted', rationale: 'the reviewer accepted the report', inputs: {}, outputs: {} });
      return 'accepted';
    }
    if (review.action === 'reject') {
      s.state.reason = review.feedback ? `report rejected: ${review.feedback}` : 'report rejected by the reviewer';
      s.decide({ agent: 'supervisor', action: 'review_rejected', rationale: s.state.reason, inputs: {}, outputs: {} });
      return 'rejected';
    }
    const feedback = review.feedback as string;
    if (mind.review_rounds >= s.settings.max_review_rounds) {
      s.decide({ agent: 'supervisor', action: 'review_feedback_declined', rationale: `all ${s.settings.max_review_rounds} review rounds are used`, inputs: { feedback }, outputs: {} });
      continue;
    }
    mind.review_rounds += 1;
    s.state.gaps.push({ description: `Reviewer: ${feedback}`, suggested_queries: [`${s.state.initial_query} ${feedback}`.slice(0, 300)], priority: 1, addressed: false, iteration: s.state.iteration });
    s.decide({ agent: 'supervisor', action: 'review_feedback', rationale: feedback, inputs: { round: mind.review_rounds }, outputs: {} });
    // The reviewer's own words reach every branch of the extra round, not only the derived query.
    mind.research_feedback = [`Reviewer: ${feedback}`];
    // One more round on the reviewer's gap, whatever iterations were used before.
    s.settings.max_iterations = Math.max(s.settings.max_iterations, s.state.iteration + 1);
    mind.phase = 'REFINEMENT';
    s.state.verified = false;
    s.setStatus('running', 'searching');
    return 'another_pass';
  }
}
