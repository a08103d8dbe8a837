// The claim judge runs ahead (issue 45): once no further iteration follows, the report as the last
// round left it is judged beside the last critique and readings, and the final check asks the model
// only about sentences written since. End to end over the harness, whose analyst here misreads every
// page's figure by one (a sentence the words alone cannot settle: only the model can), and whose
// writer misattributes a claim.
import { afterEach, describe, expect, inject, it } from 'vitest';
import type { ResearchEvent } from '../src/domain/types';
import { startEnvironment, startHarness, type Harness, type TestEnvironment } from './harness';
import { textOf } from './harness/model-script';

const schemaOf = (body: Record<string, unknown>) => (body.response_format as { json_schema?: { name?: string } } | undefined)?.json_schema?.name;
const userPrompt = (body: Record<string, unknown>) => ((body.messages as { role: string; content: unknown }[]) ?? []).filter((m) => m.role === 'user').map((m) => textOf(m.content)).join('\n');

/** Each page's first figure, misread by one: the sentence matches its page but for the number. */
function misreadFigures(name: string | undefined, prompt: string) {
  if (name !== 'source_analysis') return undefined;
  const sources = [...prompt.matchAll(/<source id="(S\d+)"[^>]*>\n([\s\S]*?)\n<\/source>/g)].map((m) => ({ id: m[1], text: m[2] }));
  const findings = sources.map((src) => {
    const first = /[^.\n]*\d+ percent[^.\n]*\./.exec(src.text)?.[0]?.trim() ?? src.text.slice(0, 120);
    return { content: first.replace(/(\d+) percent/, (_, n: string) => `${Number(n) + 1} percent`), confidence: 'high', source_ids: [src.id] };
  });
  return { findings, gaps: [], source_quality: [] };
}

describe('the claim judge ahead of the final check', () => {
  let harness: Harness | undefined;
  let env: TestEnvironment | undefined;
  afterEach(async () => {
    await env?.close();
    await harness?.close();
    env = harness = undefined;
  });

  it('judges the last round’s report beside the last critique, and the final check asks nothing twice', async () => {
    harness = await startHarness({ model: { gapIterations: 0, misattributeClaim: true, respond: misreadFigures } });
    env = await startEnvironment(harness, inject('temporalAddress'));
    const { researchId } = await env.client.start({ query: 'Solar power: costs and policy', settings: { auto_approve: true, max_sources: 6, max_iterations: 1, batch_size: 3, check_links: false } });
    await env.client.waitForResult(researchId);
    const s = await env.client.state(researchId);
    expect(s.status).toBe('completed');

    const events: ResearchEvent[] = await env.client.events(researchId, 0);
    const calls = events.filter((e) => e.type === 'ToolCall').map((e) => String(e.data.tool));
    expect(calls).toContain('judge_claims_ahead');
    // Ahead: asked before the research's synthesis was done, not at the verify step.
    expect(calls.indexOf('judge_claims_ahead')).toBeLessThan(calls.indexOf('verify_claims'));
    const judged = events.find((e) => e.type === 'ToolCallResult' && e.data.tool === 'judge_claims_ahead');
    expect(judged?.data.ok).toBe(true);

    // Every (source, statement) pair went to the model once in the whole session.
    const asked = harness.model.requests
      .filter((r) => schemaOf(r.body) === 'claim_support')
      .flatMap((r) => {
        const prompt = userPrompt(r.body);
        const source = /^Source (S\d+)\./.exec(prompt)?.[1];
        return [...prompt.matchAll(/<statement>(.*)<\/statement>/g)].map((m) => `${source} ${m[1]}`);
      });
    expect(asked.length).toBeGreaterThan(0);
    expect(new Set(asked).size).toBe(asked.length);
    // The verdicts given ahead are the final check's: the misattributed claim is still flagged.
    expect(s.mind?.unsupported_claims?.map((c) => c.sentence)).toEqual(expect.arrayContaining([expect.stringContaining('987654 gigawatts')]));
    expect(s.report_markdown).toMatch(/Not supported \[S\d+(, S\d+)*\]: “Volcanic output reached 987654 gigawatts/);
  });
});
