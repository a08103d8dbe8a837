// The final review (review_final_report): the finished report waits for accept, reject or
// feedback. Feedback becomes a gap and research goes on from refinement for one more round
// (bounded by max_review_rounds); then the report is verified and reviewed again.
import { goTo, type Answer, endAs, type Next, waitFor } from '../runs';
import type { ResearchSession } from '../session';
import { addWhatChanged } from './deliver';

export async function reviewReport(s: ResearchSession, answer: Answer | undefined): Promise<Next> {
  // A panel's report is its models' answers, merged: it is not reviewed.
  if (!s.settings.review_final_report || s.state.panel) return endAs('completed');
  if (answer?.to !== 'review') {
    // The reviewer reads what the version changed, as the finished report will say it.
    await addWhatChanged(s);
    s.info('report ready for review: accept, reject, or send feedback');
    return waitFor('review');
  }
  const review = answer.message?.kind === 'review' ? answer.message : undefined;
  if (!review) {
    s.decide({ agent: 'supervisor', action: 'review_timed_out', rationale: 'no review arrived in time: the report stands as it is', inputs: {}, outputs: {} });
    return endAs('completed');
  }
  if (review.action === 'accept') {
    s.decide({ agent: 'supervisor', action: 'review_accepted', rationale: 'the reviewer accepted the report', inputs: {}, outputs: {} });
    return endAs('completed');
  }
  if (review.action === 'reject') {
    const reason = review.feedback ? `report rejected: ${review.feedback}` : 'report rejected by the reviewer';
    s.decide({ agent: 'supervisor', action: 'review_rejected', rationale: reason, inputs: {}, outputs: {} });
    // Seed 003's end_rejected: a report the reviewer rejected is not a completed one.
    return endAs('rejected', reason);
  }
  const feedback = review.feedback as string;
  const mind = s.mind;
  if (mind.review_rounds >= s.settings.max_review_rounds) {
    s.decide({ agent: 'supervisor', action: 'review_feedback_declined', rationale: `all ${s.settings.max_review_rounds} review rounds are used`, inputs: { feedback }, outputs: {} });
    return waitFor('review');
  }
  mind.review_rounds += 1;
  const st = s.state;
  st.gaps.push({ description: `Reviewer: ${feedback}`, suggested_queries: [`${st.initial_query} ${feedback}`.slice(0, 300)], priority: 1, addressed: false, iteration: st.iteration });
  s.decide({ agent: 'supervisor', action: 'review_feedback', rationale: feedback, inputs: { round: mind.review_rounds }, outputs: {} });
  // The reviewer's own words reach every branch of the extra round, not only the derived query.
  mind.research_feedback = [`Reviewer: ${feedback}`];
  // One more round on the reviewer's gap, whatever iterations were used before.
  st.iteration_limit = Math.max(s.maxIterations, st.iteration + 1);
  return goTo('research', 'REFINEMENT');
}
