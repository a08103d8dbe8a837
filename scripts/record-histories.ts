// Records workflow histories of today's build from real runs over the harness into test/histories/,
// for the replay test. Each wait for a person ends a run, so a session leaves several: working runs
// (pinned to their build; re-record them whenever the workflow code changes) and waiting runs,
// which any later build must replay as they are (they move to the current build when answered).
//   npm run record:histories
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { redeliveryWorkflowIdFor } from '../src/contract/names';
import { waitFor } from '../test/harness';
import { startWebhookReceiver } from '../test/harness/delivery';
import { runStandalone, sessionHistories } from '../test/harness/standalone';

void startWebhookReceiver(0).then((hook) => runStandalone({ model: { gapIterations: 1, clarify: true }, search: { includeFailing: true } }, async (env, harness) => {
  const out = path.join(__dirname, '..', 'test', 'histories');
  mkdirSync(out, { recursive: true });
  for (const file of readdirSync(out)) if (file.endsWith('.json') && !file.startsWith('waiting-')) rmSync(path.join(out, file));
  const save = async (name: string, researchId: string) => {
    for (const [i, { history }] of (await sessionHistories(env.temporal, researchId)).entries()) {
      const file = path.join(out, `${name}-run${i + 1}.json`);
      writeFileSync(file, JSON.stringify(JSON.parse(historyToJSON(history)), null, 1));
      console.log(`${file}: ${history.events?.length} events`);
    }
  };
  const until = (id: string, status: string) => waitFor(status, async () => (await env.client.state(id)).status === status);
  // Clarification, revision, approval with an edited plan, two iterations, failing sources, verification.
  const a = await env.client.start({ query: 'Recorded: solar power growth', settings: { ask_clarifications: true, max_sources: 12, batch_size: 4, max_iterations: 2 } });
  await until(a.researchId, 'awaiting_clarification');
  await env.client.answer(a.researchId, ['Europe', 'since 2015']);
  await until(a.researchId, 'awaiting_approval');
  await env.client.revise(a.researchId, 'storage costs');
  await waitFor('revision', async () => (await env.client.state(a.researchId)).plan_revisions === 1 && (await env.client.state(a.researchId)).status === 'awaiting_approval');
  await env.client.approve(a.researchId, { outline: ['Overview', 'Costs', 'Storage'] });
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

  // Rejected.
  const c = await env.client.start({ query: 'Recorded: rejected plan' });
  await until(c.researchId, 'awaiting_clarification').catch(() => until(c.researchId, 'awaiting_approval'));
  await env.client.reject(c.researchId, 'recorded reject');
  await env.client.waitForResult(c.researchId);
  await save('rejected', c.researchId);

  // Continued as new for its history's length (the same build), a spent budget topped up, a review with feedback.
  const d = await env.client.start({
    query: 'Recorded: continue as new, budget and review',
    settings: { auto_approve: true, max_sources: 10, batch_size: 3, continue_as_new_after_events: 40, review_final_report: true, budget: { fetches: 4 } },
  });
  await until(d.researchId, 'awaiting_budget');
  await env.client.topUp(d.researchId, { fetches: 20 });
  await until(d.researchId, 'awaiting_review');
  await env.client.review(d.researchId, { action: 'feedback', feedback: 'add the grid costs' });
  await until(d.researchId, 'awaiting_review');
  await env.client.review(d.researchId, { action: 'accept' });
  await env.client.waitForResult(d.researchId);
  await save('continued-budget-review', d.researchId);

  // A finished session's delivery sent again (`deliver <id> --force`): a workflow of its own.
  const e = await env.client.start({ query: 'Recorded: delivery sent again', settings: { auto_approve: true, max_sources: 4, max_iterations: 1, delivery: { webhooks: [{ url: hook.url }] } } });
  await env.client.waitForResult(e.researchId);
  const resent = await env.client.deliver(e.researchId, { force: true });
  if (resent.delivery !== 'sent') throw new Error(`the recorded re-delivery did not go out: ${resent.message}`);
  const history = await env.temporal.workflow.getHandle(redeliveryWorkflowIdFor(e.researchId)).fetchHistory();
  const file = path.join(out, 'redelivered-run1.json');
  writeFileSync(file, JSON.stringify(JSON.parse(historyToJSON(history)), null, 1));
  console.log(`${file}: ${history.events?.length} events`);
  await hook.close();
}, (harness) => ({ extraEnv: { WEBHOOK_SECRET: 'recorded-secret', FETCH_ALLOW_HOSTS: `${harness.web.host},${hook.host}` } })));
