// The report's length a person asks for (report_length): the writer is told the word target and
// its patch budget scales with it; when the sources read cannot fill it, the report says so in its
// Notes instead of padding.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { REPORT_WORDS } from '../src/domain/report-length';
import { researchSettingsOverrides } from '../src/domain/settings';
import { verifyReportCitations } from '../src/report/final-check';
import { writerPrompt } from '../src/roles/writer';
import { startEnvironment, startHarness, type Harness, type TestEnvironment } from './harness';

describe('report length', () => {
  it('the writer is told the target and how far the report has got', () => {
    const prompt = writerPrompt({ query: 'Heat pumps?', outline: ['Costs'], report_markdown: '# Heat pumps\n\n## Costs\n\nThey cost less to run.', findings: [], sources: [], max_update_chars: 1600, target_words: REPORT_WORDS.detailed });
    expect(prompt).toContain('about 2500 words in all (it has 8 now)');
    expect(prompt).toMatch(/never padding it/);
    expect(researchSettingsOverrides.safeParse({ report_length: 'detailed' }).success).toBe(true);
    expect(researchSettingsOverrides.safeParse({ report_length: 'huge' }).success).toBe(false);
  });

  it('a report short of the length asked says so; one that reaches it says nothing', () => {
    const short = verifyReportCitations('# Heat pumps\n\n## Costs\n\nThey cost less to run than gas boilers [S1].\n', [{ id: 'S1', title: 'Costs', url: 'https://example.org/a' }], 0, { length_asked: { length: 'brief', words: 500 } });
    expect(short.markdown).toMatch(/Shorter than asked: a brief report of about 500 words was asked for; the sources read held enough for \d+/);
    const words = 'grid tariff boiler winter subsidy installer radiator insulation flat terrace loan meter solar night storage village'.split(' ');
    const sentences = Array.from({ length: 60 }, (_, i) => `The ${words[i % 16]} ${words[(i * 7 + 3) % 16]} of ${words[(i * 5 + 1) % 16]} homes changed ${words[(i * 3 + 2) % 16]} costs by ${i + 2} percent [S1].`);
    const long = `# Heat pumps\n\n## Costs\n\n${sentences.join(' ')}\n`;
    expect(verifyReportCitations(long, [{ id: 'S1', title: 'Costs', url: 'https://example.org/a' }], 0, { length_asked: { length: 'brief', words: 500 } }).markdown).not.toMatch(/Shorter than asked/);
  });

  describe('in a research', () => {
    let harness: Harness;
    let env: TestEnvironment;
    beforeAll(async () => {
      harness = await startHarness({ model: { gapIterations: 0 } });
      env = await startEnvironment(harness, inject('temporalAddress'));
    });
    afterAll(async () => {
      await env?.close();
      await harness?.close();
    });

    it('a detailed report: the writer is asked for it with twice the patch budget, and the Notes say the sources fell short', async () => {
      const before = harness.model.requests.length;
      const { researchId } = await env.client.start({ query: 'How fast is solar power growing?', settings: { auto_approve: true, max_iterations: 1, max_sources: 3, report_length: 'detailed' } });
      await env.client.waitForResult(researchId);
      const s = await env.client.state(researchId);
      expect(s.status).toBe('completed');
      const writes = harness.model.requests.slice(before).map((r) => JSON.stringify(r.body)).filter((b) => b.includes('report_patch'));
      expect(writes.length).toBeGreaterThan(0);
      expect(writes.every((b) => b.includes('about 2500 words in all'))).toBe(true);
      expect(writes.some((b) => /Character budget for all patches: (1600|3200|4800)/.test(b))).toBe(true);
      expect(s.report_markdown).toMatch(/Shorter than asked: a detailed report of about 2500 words was asked for/);
    });
  });
});
