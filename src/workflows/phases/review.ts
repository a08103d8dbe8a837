// The final review (review_final_report): the finished report waits for accept, reject or
// feedback. Feedback becomes a gap and runs another supervised pass (bounded), then asks again.
import { condition } from '@temporalio/workflow';
import type { ResearchSession } from '../session';
import { verifyReport } from './finish';
import { runSupervisedResearch } from './mind';
import { persistSession } from './persist';

export async function reviewFinalReport(s: ResearchSession): Promise<void> {
  const mind = s.mind();
  while (s.settings.review_final_report) {
    s.setStatus('awaiting_review', 'verifying');
    s.info('report ready for review: accept, reject, or send feedback');
    await persistSession(s);
    const arrived = await condition(() => s.reviews.length > 0, (s.settings.review_timeout_seconds ?? 7 * 24 * 3600) * 1000);
    const review = s.reviews.shift();
    if (!arrived || !review) {
      s.decide({ agent: 'supervisor', action: 'review_timed_out', rationale: 'no review arrived in time: the report stands as it is', inputs: {}, outputs: {} });
      break;
    }
    if (review.action === 'accept') {
      s.decide({ agent: 'supervisor', action: 'review_accepted', rationale: 'the reviewer accepted the report', inputs: {}, outputs: {} });
      break;
    }
    if (review.action === 'reject') {
      s.state.reason = review.feedback ? `report rejected: ${review.feedback}` : 'report rejected by the reviewer';
      s.decide({ agent: 'supervisor', action: 'review_rejected', rationale: s.state.reason, inputs: {}, outputs: {} });
      s.reportRejected = true;
      break;
    }
    const feedback = review.feedback as string;
    if (mind.review_rounds >= (s.settings.max_review_rounds ?? 2)) {
      s.decide({ agent: 'supervisor', action: 'review_feedback_declined', rationale: `all ${s.settings.max_review_rounds ?? 2} review rounds are used`, inputs: { feedback }, outputs: {} });
      continue;
    }
    mind.review_rounds += 1;
    s.state.gaps.push({ description: `Reviewer: ${feedback}`, suggested_queries: [`${s.state.initial_query} ${feedback}`.slice(0, 300)], priority: 1, addressed: false, iteration: s.state.iteration });
    s.decide({ agent: 'supervisor', action: 'review_feedback', rationale: feedback, inputs: { round: mind.review_rounds }, outputs: {} });
    // The reviewer's own words reach every branch of the extra round, not only the derived query.
    mind.research_feedback = [`Reviewer: ${feedback}`];
    s.setStatus('running', 'searching');
    // One more round on the reviewer's gap, whatever iterations were used before.
    s.settings.max_iterations = Math.max(s.settings.max_iterations, s.state.iteration + 1);
    mind.phase = 'REFINEMENT';
    await runSupervisedResearch(s);
    await verifyReport(s);
  }
}
