import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { formatStatus } from '../src/cli/format';
import { sign, verifySignature, SIGNATURE_HEADER, DELIVERY_ID_HEADER } from '../src/delivery/webhook';
import { startEnvironment, startHarness, waitFor, workflowBundle, type Harness, type TestEnvironment } from './harness';
import { startSmtp, startWebhookReceiver, type FakeSmtp, type FakeWebhook } from './harness/delivery';
import { storeWaits } from '../src/client/store-waits';

const SECRET = 'test-signing-secret';
const SMALL = { max_sources: 6, max_search_results_per_query: 3, batch_size: 3, max_iterations: 1 };

describe('delivery of the report by e-mail and signed webhook', () => {
  let harness: Harness;
  let env: TestEnvironment;
  let smtp: FakeSmtp;
  let hook: FakeWebhook;

  beforeAll(async () => {
    harness = await startHarness();
    smtp = await startSmtp();
    hook = await startWebhookReceiver(1);
    env = await startEnvironment(harness, inject('temporalAddress'), {
      extraEnv: {
        SMTP_HOST: '127.0.0.1',
        SMTP_PORT: String(smtp.port),
        SMTP_FROM: 'Deep Research <research@example.test>',
        WEBHOOK_SECRET: SECRET,
        FETCH_ALLOW_HOSTS: `${harness.web.host},${hook.host}`,
      },
    });
  });
  afterAll(async () => {
    await env?.close();
    await Promise.all([harness?.close(), smtp?.close(), hook?.close()]);
  });

  it('mails the plan while it awaits approval, then the report with Markdown and PDF attached; the webhook gets each once despite a first 500', async () => {
    const { researchId } = await env.client.start({
      query: 'How fast is solar power growing?',
      settings: { ...SMALL, delivery: { email: { to: ['reader@example.test'] }, webhooks: [{ url: hook.url }], on: ['awaiting_approval', 'completed'] } },
    });
    // The plan is mailed and POSTed before anyone approves it.
    const planMail = await waitFor('the plan by e-mail', async () => smtp.mails.find((m) => m.subject?.startsWith('Research plan awaiting approval')));
    expect(planMail.text).toContain(`deep-research approve ${researchId}`);
    expect(planMail.html).toContain('<h2>Queries</h2>');

    await waitFor('the plan delivered', async () => (await env.client.state(researchId)).delivery_log?.length === 2);
    await env.client.approve(researchId);
    await env.client.waitForResult(researchId);
    const s = await env.client.state(researchId);
    expect(s.status).toBe('completed');

    const reportMail = smtp.mails.find((m) => m.subject === 'Research report: How fast is solar power growing?');
    expect(reportMail).toBeDefined();
    const mail = reportMail!;
    expect(mail.to && !Array.isArray(mail.to) ? mail.to.text : '').toBe('reader@example.test');
    expect(mail.from?.text).toContain('research@example.test');
    // The HTML body is the rendered report; the report's own citations and sources are in it.
    expect(mail.html).toContain('<h2>Sources</h2>');
    expect(mail.html).toContain(s.sources.find((x) => x.status === 'fetched')!.url.replace(/&/g, '&amp;'));
    const names = mail.attachments.map((a) => a.filename);
    expect(names).toEqual([`how-fast-is-solar-power-growing-${researchId}.md`, `how-fast-is-solar-power-growing-${researchId}.pdf`]);
    expect(mail.attachments[0].content.toString('utf8')).toBe(s.report_markdown);
    expect(mail.attachments[1].contentType).toBe('application/pdf');
    expect(mail.attachments[1].content.subarray(0, 5).toString()).toBe('%PDF-');

    // Webhook: the first POST got a 500, Temporal retried; every call is signed and verifies.
    expect(hook.calls.map((c) => c.answered)).toEqual([500, 204, 204]);
    for (const call of hook.calls) {
      expect(verifySignature(SECRET, call.headers[SIGNATURE_HEADER] as string, call.body)).toBe(true);
      expect(verifySignature('another-secret', call.headers[SIGNATURE_HEADER] as string, call.body)).toBe(false);
      expect(verifySignature(SECRET, call.headers[SIGNATURE_HEADER] as string, `${call.body} `)).toBe(false);
    }
    // A replayed request is refused once its timestamp is old.
    const stale = Math.floor(Date.now() / 1000) - 600;
    expect(verifySignature(SECRET, sign(SECRET, stale, hook.calls[2].body), hook.calls[2].body)).toBe(false);
    // The retry is the same delivery (same id); one successful delivery per event.
    expect(hook.calls[0].headers[DELIVERY_ID_HEADER]).toBe(hook.calls[1].headers[DELIVERY_ID_HEADER]);
    const delivered = hook.calls.filter((c) => c.answered === 204).map((c) => JSON.parse(c.body) as Record<string, unknown>);
    expect(delivered.map((b) => b.event)).toEqual(['awaiting_approval', 'completed']);
    expect(delivered[1]).toMatchObject({ research_id: researchId, status: 'completed', report_markdown: s.report_markdown });

    // The session's delivery log: four deliveries, all sent, the first webhook on its second attempt.
    const log = s.delivery_log ?? [];
    expect(log.map((r) => [r.event, r.channel, r.ok]).sort()).toEqual([
      ['awaiting_approval', 'email', true],
      ['awaiting_approval', 'webhook', true],
      ['completed', 'email', true],
      ['completed', 'webhook', true],
    ]);
    expect(log.find((r) => r.event === 'awaiting_approval' && r.channel === 'webhook')?.attempts).toBe(2);
    expect(formatStatus(s)).toContain('delivery: 4 sent, 0 failed');
    // The delivery path replays deterministically from its history.
    await Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, await env.client.handle(researchId).fetchHistory(), researchId);
  });

  it('a delivery that cannot be made is logged and the research still completes', async () => {
    const { researchId } = await env.client.start({
      query: 'How fast is solar power growing?',
      autoApprove: true,
      settings: { ...SMALL, delivery: { email: { to: ['nobody@example.test'] }, webhooks: [{ url: 'http://169.254.169.254/latest/hook' }] } },
    });
    const result = (await env.client.waitForResult(researchId)) as { status: string };
    expect(result.status).toBe('completed');
    const s = await env.client.state(researchId);
    const log = s.delivery_log ?? [];
    expect(log).toHaveLength(2);
    expect(log.every((r) => !r.ok)).toBe(true);
    expect(log.find((r) => r.channel === 'email')?.error).toMatch(/550/);
    expect(log.find((r) => r.channel === 'webhook')?.error).toMatch(/169\.254\.169\.254 is a linkLocal address/);
    expect(formatStatus(s)).toContain('delivery: 0 sent, 2 failed');
  });

  it('a failed session is mailed when delivery asks for failures', async () => {
    // A second environment whose search is down from the start: the session fails for want of sources.
    const down = await startHarness({ search: { failAfter: 0 } });
    const failing = await startEnvironment(down, inject('temporalAddress'), { extraEnv: { SMTP_HOST: '127.0.0.1', SMTP_PORT: String(smtp.port) } });
    try {
      const { researchId } = await failing.client.start({
        query: 'Why did the search fail?',
        autoApprove: true,
        settings: { ...SMALL, delivery: { email: { to: ['oncall@example.test'] }, on: ['failed'] } },
      });
      await expect(failing.client.waitForResult(researchId)).rejects.toThrow();
      const s = await failing.client.state(researchId);
      expect(s.status).toBe('failed');
      expect(s.delivery_log?.map((r) => [r.event, r.channel, r.ok])).toEqual([['failed', 'email', true]]);
      const mail = smtp.mails.find((m) => m.subject === 'Research failed: Why did the search fail?');
      expect(mail?.text).toContain(`Research ${researchId}: failed (`);
      expect(mail?.text).toContain('search was unavailable');
    } finally {
      await failing.close();
      await down.close();
    }
  });

  it('refuses delivery settings that could never work', async () => {
    await expect(env.client.start({ query: 'q', settings: { delivery: { email: { to: ['not an address'] } } } })).rejects.toThrow(/invalid settings: .*delivery/);
    await expect(env.client.start({ query: 'q', settings: { delivery: { webhooks: [{ url: 'ftp://example.test/x' }] } } })).rejects.toThrow(/only http\(s\) webhooks/);
    await expect(env.client.start({ query: 'q', settings: { delivery: { on: ['completed'] } } })).rejects.toThrow(/delivery needs email.to or at least one webhook/);
  });
});

describe('a delivery whose worker lacks its secret', () => {
  let harness: Harness;
  let env: TestEnvironment;
  let hook: FakeWebhook;

  beforeAll(async () => {
    harness = await startHarness();
    hook = await startWebhookReceiver(0);
    // The worker starts without WEBHOOK_SECRET, as one another process started would.
    env = await startEnvironment(harness, inject('temporalAddress'), { extraEnv: { FETCH_ALLOW_HOSTS: `${harness.web.host},${hook.host}` } });
  });
  afterAll(async () => {
    await env?.close();
    await Promise.all([harness?.close(), hook?.close()]);
  });

  it('waits, retried with backoff, says so in status, and is delivered once a worker with the secret runs', async () => {
    const { researchId } = await env.client.start({ query: 'How fast is solar power growing?', autoApprove: true, settings: { ...SMALL, delivery: { webhooks: [{ url: hook.url }] } } });
    const waits = await waitFor('status to say the delivery waits for its secret', async () => {
      const notes = await storeWaits(env.temporal, researchId);
      return notes.find((n) => n.store === 'delivery' && n.attempt >= 2) ? notes : undefined;
    }, 120_000, 500);
    expect(waits[0].line).toMatch(/^delivery waits \(attempt \d+\): webhook delivery needs WEBHOOK_SECRET .*, which the worker \(pid \d+ on .+\) does not have: restart the worker with it set$/);
    expect(hook.calls).toHaveLength(0);
    // The worker is restarted with the secret: the next attempt delivers, signed with it.
    await env.stopWorker();
    env.env.WEBHOOK_SECRET = SECRET;
    await env.startWorker();
    await env.client.waitForResult(researchId);
    const log = (await env.client.state(researchId)).delivery_log ?? [];
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ channel: 'webhook', ok: true });
    expect(log[0].attempts).toBeGreaterThanOrEqual(2);
    expect(hook.calls).toHaveLength(1);
    expect(verifySignature(SECRET, hook.calls[0].headers[SIGNATURE_HEADER] as string, hook.calls[0].body)).toBe(true);
  }, 180_000);
});
