// A finished session's delivery sent again (`deliver <id>`): each target the client chose, through
// the same activities and retries as the delivery at the session's end, its outcome added to the
// session's stored delivery log. Nothing of the research runs again.
import type { RedeliveryInput, RedeliveryResult } from '../contract/workflows';
import { store } from './activities';
import { sendTo } from './phases/deliver';

export async function redeliverResearch(input: RedeliveryInput): Promise<RedeliveryResult> {
  const records = (await sendTo(input.research_id, input.event, input)).map((r) => ({ ...r, resent: true }));
  await store.recordDeliveries({ research_id: input.research_id, records });
  return { research_id: input.research_id, event: input.event, records };
}
