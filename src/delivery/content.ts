// What a delivery says about a session: a subject line, the Markdown (the report, or the plan
// while it awaits approval), and the same as an HTML page and a PDF for e-mail.
import { reportPdf } from '../report/pdf';
import { reportPage } from '../report/html';
import type { DeliveryEvent } from '../domain/delivery';
import type { ResearchPlan, ResearchSnapshot } from '../domain/types';

export interface DeliveryContent {
  subject: string;
  markdown: string;
  /** A short line above the report: what happened and how to follow up. */
  note: string;
}

const SUBJECTS: Record<DeliveryEvent, string> = {
  completed: 'Research report',
  failed: 'Research failed',
  awaiting_approval: 'Research plan awaiting approval',
  timed_out: 'Research timed out (partial report)',
  cancelled: 'Research cancelled (partial report)',
  rejected: 'Research rejected',
  expired: 'Research plan expired unapproved',
};

export function deliveryContent(s: ResearchSnapshot, event: DeliveryEvent): DeliveryContent {
  const question = s.initial_query.replace(/\s+/g, ' ').slice(0, 120);
  const subject = `${SUBJECTS[event]}: ${question}`;
  const markdown = event === 'awaiting_approval' && s.plan ? planMarkdown(s.initial_query, s.plan) : s.report_markdown || `# ${question}\n\nNo report was written.`;
  const why = s.reason ? ` (${s.reason})` : '';
  const note =
    event === 'awaiting_approval'
      ? `Research ${s.research_id} waits for approval: deep-research approve ${s.research_id}`
      : `Research ${s.research_id}: ${s.status}${why}`;
  return { subject, markdown, note };
}

export function planMarkdown(query: string, plan: ResearchPlan): string {
  const lines = [`# Plan: ${query}`, '', plan.research_brief, '', '## Queries', ''];
  for (const q of plan.expanded_queries) lines.push(`- ${q.query} — ${q.rationale}`);
  lines.push('', '## Outline', '', ...plan.outline.map((h) => `- ${h}`));
  if (plan.assumptions.length) lines.push('', '## Assumptions', '', ...plan.assumptions.map((a) => `- ${a}`));
  return lines.join('\n');
}

export function contentHtml(c: DeliveryContent): string {
  return reportPage(c.subject, c.markdown, c.note);
}

export function contentPdf(c: DeliveryContent): Promise<Buffer> {
  return reportPdf(c.markdown, { title: c.subject });
}
