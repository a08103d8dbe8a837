// Delivery of a finished (or waiting) session by e-mail and signed webhook, and the comparison of
// a scheduled run with the schedule's previous one. Each runs once per attempt; Temporal retries.
import { Context } from '@temporalio/activity';
import { hostname } from 'node:os';
import { DELIVERY_NEEDS_SECRET } from '../domain/names';
import { ApplicationFailure } from '@temporalio/common';
import type { AppConfig } from '../config/schema';
import { deliveryContent } from '../delivery/content';
import { diffRuns, digestOf, whatChangedMarkdown, withWhatChanged, type RunDigest } from '../delivery/diff';
import { safeFileName, sendReportEmail, smtpOf } from '../delivery/email';
import { postWebhook } from '../delivery/webhook';
import { parseAllowList } from '../fetching/guard';
import type { ArtifactStore } from '../stores/artifacts';
import type { SessionStore } from '../stores/sessions';
import { reportLanguage } from '../report/language';
import { storeReport } from './report-activities';
import { labelsFor } from '../report/labels';
import type { ResearchSnapshot } from '../domain/types';
import type { CompareRunsInput, CompareRunsOutput, DeliverEmailInput, DeliverWebhookInput, DeliveryOutcome } from './contracts';

export interface DeliveryDeps {
  config: AppConfig;
  sessions: () => SessionStore;
  artifacts: ArtifactStore;
}

const attempt = (): number => Context.current().info.attempt;

/**
 * A secret this worker's environment lacks: retried with backoff (any worker of the queue may take
 * the next attempt, and one restarted with the variable delivers), shown by `status` meanwhile,
 * and in the delivery log if the attempts run out.
 */
const needsSecret = (what: string) =>
  ApplicationFailure.retryable(`${what}, which the worker (pid ${process.pid} on ${hostname()}) does not have: restart the worker with it set`, DELIVERY_NEEDS_SECRET);

export function createDeliveryActivities({ config, sessions, artifacts }: DeliveryDeps) {
  const { delivery } = config.environment;
  const snapshot = async (id: string): Promise<ResearchSnapshot> => {
    const s = await sessions().get(id);
    if (!s) throw ApplicationFailure.retryable(`research ${id} is not in the session store yet`, 'NotPersisted');
    return s;
  };
  return {
    async deliverEmail(input: DeliverEmailInput): Promise<DeliveryOutcome> {
      // From this worker's config: a worker restarted with the variable delivers.
      if (!delivery.smtp.host) throw needsSecret('e-mail delivery needs SMTP_HOST (and SMTP_PORT, SMTP_FROM; SMTP_USER and SMTP_PASS if the server wants a login)');
      const smtp = smtpOf(delivery.smtp);
      const s = await snapshot(input.research_id);
      const content = deliveryContent(s, input.event);
      const headers = { 'X-Deep-Research-Id': s.research_id, 'X-Deep-Research-Event': input.event };
      const response = await sendReportEmail(smtp, input.to, content, `${safeFileName(s.initial_query)}-${s.research_id}`, headers);
      return { response, attempts: attempt() };
    },

    async deliverWebhook(input: DeliverWebhookInput): Promise<DeliveryOutcome> {
      const secret = delivery.webhook_secret;
      if (!secret) throw needsSecret('webhook delivery needs WEBHOOK_SECRET (the key the body is signed with)');
      const s = await snapshot(input.research_id);
      const status = await postWebhook({
        url: input.url,
        body: JSON.stringify(webhookBody(s, input.event)),
        event: input.event,
        deliveryId: `${s.research_id}:${input.event}:${s.updated_at}`,
        secret,
        allow: parseAllowList(config.fetch.allow_hosts),
        userAgent: config.fetch.user_agent,
        signal: Context.current().cancellationSignal,
      });
      return { response: `HTTP ${status}`, attempts: attempt() };
    },

    async compareWithPreviousRun(input: CompareRunsInput): Promise<CompareRunsOutput> {
      const version = input.previous_id ? { since: input.previous_id } : undefined;
      const previous = input.previous_id ? await sessions().get(input.previous_id) : input.schedule_id ? await sessions().previousScheduledRun(input.schedule_id, input.research_id) : undefined;
      const report = await artifacts.getText(input.report_file_id);
      // In the asker's language: the session's, else the earlier run's (the same question), else the report's title's.
      const labels = labelsFor(reportLanguage(input.language ?? previous?.plan?.context?.language, report)).whatChanged;
      if (!previous) return storeReport(artifacts, withWhatChanged(report, whatChangedMarkdown(undefined, undefined, version, labels)));
      const current: RunDigest = { research_id: input.research_id, created_at: '', sources: input.sources, findings: input.findings };
      const diff = diffRuns(digestOf(previous), current);
      return { ...(await storeReport(artifacts, withWhatChanged(report, whatChangedMarkdown(diff, previous, version, labels)))), summary: diff.summary };
    },
  };
}

function webhookBody(s: ResearchSnapshot, event: DeliverWebhookInput['event']): Record<string, unknown> {
  const content = deliveryContent(s, event);
  return {
    event,
    research_id: s.research_id,
    status: s.status,
    query: s.initial_query,
    ...(s.reason ? { reason: s.reason } : {}),
    ...(s.settings.schedule_id ? { schedule_id: s.settings.schedule_id } : {}),
    created_at: s.created_at,
    updated_at: s.updated_at,
    subject: content.subject,
    ...(event === 'awaiting_approval' ? { plan: s.plan } : { report_markdown: s.report_markdown }),
    sources: s.sources.filter((x) => x.status === 'fetched').map((x) => ({ id: x.id, title: x.title, url: x.url })),
    ...(s.what_changed ? { what_changed: s.what_changed } : {}),
    sent_at: new Date().toISOString(),
  };
}
