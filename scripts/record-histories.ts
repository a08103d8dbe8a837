// Records workflow histories from real runs over the harness into test/histories/, for the replay
// test. Re-record only on purpose: a committed history is a promise to running sessions. The
// continue-as-new session is forced at 25 events (v1–v6 were recorded at 60; local bookkeeping
// activities since v7 leave shorter histories).
//   npm run record:histories -- v2     (the prefix names the workflow version the files pin)
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { waitFor } from '../test/harness';
import { runStandalone, sessionHistories } from '../test/harness/standalone';

runStandalone({ model: { gapIterations: 1, clarify: true }, search: { includeFailing: true } }, async (env, harness) => {
  const out = path.join(__dirname, '..', 'test', 'histories');
  const prefix = process.argv[2] ? `${process.argv[2]}-` : '';
  const save = async (name: string, researchId: string) => {
    const runs = await sessionHistories(env.temporal, researchId);
    for (const [i, { history }] of runs.entries()) {
      const file = path.join(out, `${prefix}${runs.length > 1 ? `${name}-run${i + 1}` : name}.json`);
      writeFileSync(file, JSON.stringify(JSON.parse(historyToJSON(history)), null, 1));
      console.log(`${file}: ${history.events?.length} events`);
    }
  };
  const until = (id: string, status: string) => waitFor(status, async () => (await env.client.state(id)).status === status);
  // Clarification, revision, edited approval, two iterations, failing sources, verification.
  const a = await env.client.start({ query: 'Recorded: solar power growth', settings: { ask_clarifications: true, max_sources: 12, batch_size: 4, max_iterations: 2 } });
  await until(a.researchId, 'awaiting_clarification');
  await env.client.answer(a.researchId, ['Europe', 'since 2015']);
  await until(a.researchId, 'awaiting_approval');
  await env.client.revise(a.researchId, 'storage costs');
  await waitFor('revision', async () => (await env.client.state(a.researchId)).plan_revisions === 1 && (await env.client.state(a.researchId)).status === 'awaiting_approval');
  await env.client.approve(a.researchId);
  await env.client.waitForResult(a.researchId);
  await save('completed-with-clarification-and-revision', a.researchId);

  // Cancelled mid-run.
  harness.web.setDelay(500);
  const b = await env.client.start({ query: 'Recorded: cancelled research', settings: { auto_approve: true, batch_size: 2 } });
  await waitFor('findings', async () => (await env.client.state(b.researchId)).findings.length > 0);
  await env.client.cancel(b.researchId, 'recorded cancel');
  await env.client.waitForResult(b.researchId);
  await save('cancelled-mid-run', b.researchId);
  harness.web.setDelay(0);

  // Rejected, and continued-as-new.
  const c = await env.client.start({ query: 'Recorded: rejected plan' });
  await until(c.researchId, 'awaiting_clarification').catch(() => until(c.researchId, 'awaiting_approval'));
  await env.client.reject(c.researchId, 'recorded reject');
  await env.client.waitForResult(c.researchId);
  await save('rejected', c.researchId);

  const d = await env.client.start({ query: 'Recorded: continue as new', settings: { auto_approve: true, max_sources: 10, batch_size: 3, continue_as_new_after_events: 25 } });
  await env.client.waitForResult(d.researchId);
  await save('continued-as-new', d.researchId);
});
