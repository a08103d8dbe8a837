// The report's own lines agree with the session's state (issue 39): the decision log says a section
// was filled only when the report has it filled, a section says it found nothing only when nothing
// was found (issue 47), the log's last word on gaps agrees with the open
// gaps `status` counts, and an enhanced version waiting for review already says what changed.
import { afterEach, describe, expect, inject, it } from 'vitest';
import { formatStatus } from '../src/cli/format';
import { startEnvironment, startHarness, waitFor, type Harness, type HarnessOptions, type TestEnvironment } from './harness';

const fast = { auto_approve: true, max_sources: 6, max_iterations: 1, batch_size: 3 };

describe('the report agrees with the session', () => {
  let harness: Harness | undefined;
  let env: TestEnvironment | undefined;

  async function setup(opts: HarnessOptions = {}) {
    harness = await startHarness(opts);
    env = await startEnvironment(harness, inject('temporalAddress'));
    return { harness, env };
  }
  afterEach(async () => {
    await env?.close();
    await harness?.close();
    env = harness = undefined;
  });

  it('a section whose findings the writer put elsewhere says where they are, not that nothing was found; the log says the same; gaps found after the decision to finish are logged', async () => {
    // The writer numbers and upper-cases its headings ("1. OVERVIEW"), and never writes Policy, not even when asked.
    const { env } = await setup({ model: { gapIterations: 1, writerSkips: ['Policy'], stubbornWriter: true, gapWhileFilling: true, numberedHeadings: true } });
    const { researchId } = await env.client.start({ query: 'Agreement check: district heating', settings: { ...fast, max_iterations: 3, max_sources: 20 } });
    await env.client.waitForResult(researchId);
    const s = await env.client.state(researchId);
    const decisions = s.mind?.agent_decisions ?? [];
    const section = (title: string) => new RegExp(`## ${title}\\n\\n([\\s\\S]*?)\\n## `).exec(s.report_markdown)?.[1] ?? '';
    // Each patch went to the section its heading means, none to the last one by default.
    for (const title of ['Overview', 'Costs and trends']) {
      expect(section(title)).toMatch(/^- .*\[S\d+/);
      expect(section(title)).not.toContain('**Gap:**');
    }
    // The reading found findings for Policy; the writer put them elsewhere: the report says where, not that it found nothing.
    const policy = section('Policy').trim();
    expect(policy).not.toContain('**Gap:**');
    expect(policy).toMatch(/^\*\*Written elsewhere:\*\* what the research found on “Policy” \(from S\d+(?:, S\d+)*\) is said under “(?:Overview|Costs and trends)”(?:, “(?:Overview|Costs and trends)”)?\.$/);
    expect(s.stated_gaps ?? []).not.toContain('Policy');
    expect(decisions.filter((d) => d.action === 'sections_filled')).toEqual([]);
    const left = decisions.find((d) => d.action === 'sections_left_empty');
    expect(left?.inputs.sections).toEqual(['Policy']);
    expect(left?.rationale).toMatch(/^"Policy": the writer did not write there the \d+ findings read for it \(from S\d+.*\); the final check gives them there$/);
    const placed = decisions.find((d) => d.action === 'sections_placed');
    expect(placed?.inputs.sections).toEqual(['Policy']);
    expect(placed?.rationale).toMatch(/"Policy": said under "(?:Overview|Costs and trends)"/);
    // "no open gaps after iteration 2", then the reading named one: the log says so, and status counts it.
    expect(decisions.filter((d) => d.action === 'complete').at(-1)?.rationale).toBe('no open gaps after iteration 2');
    const open = s.gaps.filter((g) => !g.addressed).length;
    expect(open).toBeGreaterThan(0);
    expect(formatStatus(s)).toContain(`open gaps: ${open}`);
    expect(decisions.find((d) => d.action === 'gaps_left_open')?.rationale).toBe(`${open} ${open === 1 ? 'gap' : 'gaps'} found after the decision to finish: ${open} open ${open === 1 ? 'gap' : 'gaps'} left for the report`);
  });

  it('a section the reading fills is logged as filled once the report has it', async () => {
    const { env } = await setup({ model: { gapIterations: 0, writerSkips: ['Policy'] } });
    const { researchId } = await env.client.start({ query: 'Agreement check: heat networks', settings: fast });
    await env.client.waitForResult(researchId);
    const s = await env.client.state(researchId);
    const filled = s.mind?.agent_decisions.find((d) => d.action === 'sections_filled');
    expect(filled?.inputs.sections).toEqual(['Policy']);
    expect(filled?.rationale).toMatch(/^"Policy": written from \d+ findings of S\d+/);
    expect(s.mind?.agent_decisions.some((d) => d.action === 'sections_left_empty' || d.action === 'gaps_left_open')).toBe(false);
  });

  it('an enhanced version waiting for review shows "What changed"; accepted, it has the section once', async () => {
    const { env } = await setup({ model: { gapIterations: 0 } });
    const { researchId } = await env.client.start({ query: 'Agreement check: tidal lagoons', settings: { ...fast, review_final_report: true } });
    await waitFor('the review', async () => (await env.client.state(researchId)).status === 'awaiting_review');
    await env.client.review(researchId, { action: 'accept' });
    await env.client.waitForResult(researchId);
    const v2 = (await env.client.enhance(researchId, { focus: 'costs' })).researchId;
    await waitFor('the new version\'s review', async () => (await env.client.state(v2)).status === 'awaiting_review', 120_000);
    const waiting = await env.client.state(v2);
    expect(waiting.report_markdown).toMatch(/^## What changed since v1$/m);
    await env.client.review(v2, { action: 'accept' });
    await env.client.waitForResult(v2);
    const done = await env.client.state(v2);
    expect(done.status).toBe('completed');
    expect(done.report_markdown.match(/^## What changed since /gm)).toHaveLength(1);
  });
});
