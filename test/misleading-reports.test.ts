// Reports that cannot mislead, end to end over the harness: a careless scripted model that cites in
// every shape, invents ids in every shape, misattributes a claim, repeats itself, never writes one
// section, and is fed off-topic pages. The report and the state say what was removed, merged and
// skipped, and why; the model's output streams as AgentStream events outside workflow history.
import { afterEach, describe, expect, inject, it } from 'vitest';
import { citedIds } from '../src/report/markdown';
import { citedSentences } from '../src/report/sentences';
import type { ResearchEvent } from '../src/domain/types';
import { startEnvironment, startHarness, type Harness, type HarnessOptions, type TestEnvironment } from './harness';
import { INVENTED_CITATIONS } from './harness/model';
import { triagedPages } from './harness/triage-answers';

/** A model that reads what a page is about: only a page on solar power addresses a question on solar power. */
const triageBySubject = (name: string | undefined, prompt: string) =>
  name === 'source_triage'
    ? { verdicts: triagedPages(prompt).map((p) => (/solar/i.test(p.shown.split('\n')[0] ?? '') ? { source_id: p.id, verdict: 'addresses', why: 'It is about solar power.' } : { source_id: p.id, verdict: 'no', why: 'It is about another energy source.' })) }
    : undefined;

const settings = { auto_approve: true, max_sources: 8, max_iterations: 1, batch_size: 4, min_relevance: 0.2, max_report_update_size: 8000 };

describe('reports that cannot mislead', () => {
  let harness: Harness | undefined;
  let env: TestEnvironment | undefined;

  async function setup(opts: HarnessOptions = {}, relevance = true) {
    harness = await startHarness(opts);
    env = await startEnvironment(harness, inject('temporalAddress'), {
      configure: (config) => {
        if (relevance) config.research.settings.min_relevance = 0.2;
      },
    });
    return { harness, env };
  }
  afterEach(async () => {
    await env?.close();
    await harness?.close();
    env = harness = undefined;
  });

  it('removes invented citations of every shape, merges repeats, skips off-topic pages and leaves no placeholder', async () => {
    const { harness, env } = await setup({ model: { gapIterations: 0, carelessWriter: true, repeatFindings: true, misattributeClaim: true, respond: triageBySubject } });
    const { researchId } = await env.client.start({ query: 'Solar power: costs and policy', settings });
    await env.client.waitForResult(researchId);
    const s = await env.client.state(researchId);
    expect(s.status).toBe('completed');
    const md = s.report_markdown;
    const body = md.split('## Sources')[0];

    // Off-topic pages: scored; a batch's worth a branch read beside the triage and set aside, the
    // rest skipped unread with their score; never cited, each named in the Notes with the judge's reason.
    const fetched = s.sources.filter((x) => x.status === 'fetched');
    expect(fetched.every((x) => typeof x.relevance === 'number')).toBe(true);
    const skipped = fetched.filter((x) => x.skipped_off_topic);
    const setAside = fetched.filter((x) => !x.skipped_off_topic && x.off_question);
    const read = fetched.filter((x) => !x.skipped_off_topic && !x.off_question);
    expect(skipped.length + setAside.length).toBeGreaterThan(0);
    expect(read.length).toBeGreaterThan(0);
    expect([...skipped, ...setAside].every((x) => (x.relevance ?? 1) < 0.2 && !/solar/i.test(x.title))).toBe(true);
    expect(read.every((x) => (x.relevance ?? 0) >= 0.2 || /solar/i.test(x.title))).toBe(true);
    const analyzerPrompts = harness.model.requests.map((r) => JSON.stringify(r.body)).filter((b) => b.includes('source_analysis'));
    const shown = (x: { id: string }) => analyzerPrompts.some((p) => p.includes(`<source id=\\"${x.id}\\"`));
    const perBranch = new Map<string, number>();
    for (const x of setAside) perBranch.set(x.query, (perBranch.get(x.query) ?? 0) + 1);
    expect([...perBranch.values()].every((n) => n <= settings.batch_size)).toBe(true);
    for (const x of skipped) expect(shown(x)).toBe(false);
    for (const x of [...skipped, ...setAside]) {
      expect(citedIds(body)).not.toContain(x.id);
      expect(md).toContain(`${x.id} `);
      expect(md).toMatch(new RegExp(`${x.id} .*It is about another energy source`));
    }
    if (skipped.length) expect(md).toMatch(/source\(s\) were not read: judged before reading not to address the question/);
    const readScores = read.map((x) => `relevance ${(x.relevance ?? 0).toFixed(2)})`);
    for (const score of readScores) expect(md.split('## Notes')[0]).toContain(score);

    // Invented ids in every shape are gone from the text and listed with their claims.
    for (const shape of ['invented.example', '[S901]', '[902]', 'src-903', '(Source 904)', '[^905]', 'S906', 'S907']) expect(body).not.toContain(shape);
    const removals = s.citation_removals ?? [];
    const batches = new Set(removals.map((r) => /batch (\d+)/.exec(r.claim)?.[1]));
    // [S906][S907] is two citations, each removed.
    expect(removals.length).toBe((INVENTED_CITATIONS.length + 1) * batches.size);
    expect(removals.map((r) => r.citation)).toEqual(expect.arrayContaining([...INVENTED_CITATIONS.filter((c) => c !== '[S906][S907]'), '[S906]', '[S907]']));
    expect(removals.every((r) => /^Invented claim \d of batch \d+ about regional output( a study)?\.?$/.test(r.claim))).toBe(true);
    expect(md).toContain(`Removed \\[src-903\\] (no fetched source S903)`);
    expect(s.citations_found).toBeGreaterThan(removals.length);
    expect(md).toContain(`- Citations: ${s.citations_found} found in the text;`);
    // Real sources cited in other shapes were normalised, not removed.
    expect(citedIds(body).length).toBeGreaterThan(0);
    expect(citedIds(body).every((id) => read.some((x) => x.id === id))).toBe(true);

    // The misattributed claim is still flagged by the claim check.
    expect(s.mind?.unsupported_claims?.map((c) => c.sentence)).toEqual(expect.arrayContaining([expect.stringContaining('987654 gigawatts')]));

    // One claim, once: no cited sentence twice; the merges are recorded.
    const sentences = citedSentences(md).map((x) => x.text.toLowerCase());
    expect(new Set(sentences).size).toBe(sentences.length);
    expect(s.merged_claims?.length).toBeGreaterThan(0);
    expect(md).toMatch(/repeated claim\(s\) were merged into one/);

    // The last outline section was never written: it says what was looked for, not "in progress".
    expect(md).not.toContain('_Research in progress._');
    expect(md).toMatch(/## Policy\n\n\*\*Gap:\*\* the research looked for material on “Policy” and found nothing it could cite\. Queries tried: “/);

    // The model's output streamed as AgentStream events: in the session store, not in history.
    const live = await env.client.handle(researchId).query<ResearchEvent[], [{ afterSeq: number }]>('events', { afterSeq: 0 });
    expect(live.some((e) => e.type === 'AgentStream')).toBe(false);
    const all = await env.client.events(researchId, 0, { stream: true });
    const streamed = all.filter((e) => e.type === 'AgentStream');
    expect(new Set(streamed.map((e) => e.data.role))).toEqual(new Set(['planner', 'analyzer', 'writer']));
    const history = await env.client.handle(researchId).fetchHistory();
    expect(JSON.stringify(history)).not.toContain('AgentStream');
    // Each writer call's stream, in order, adds up to the patch JSON the model sent.
    const firstWriter = streamed.filter((e) => e.data.role === 'writer' && e.data.call_id === streamed.find((x) => x.data.role === 'writer')?.data.call_id);
    expect(JSON.parse(firstWriter.map((e) => e.data.delta).join(''))).toHaveProperty('patches');
    expect(all.map((e) => e.seq)).toEqual([...all.map((e) => e.seq)].sort((a, b) => a - b));
  });

  it('writes in the language of the question: the plan records it and the writer is told', async () => {
    const { harness, env } = await setup({ model: { gapIterations: 0 } }, false);
    const { researchId } = await env.client.start({ query: '德里的空气污染有多严重？solar power', settings: { ...settings, min_relevance: 0 } });
    await env.client.waitForResult(researchId);
    const s = await env.client.state(researchId);
    expect(s.status).toBe('completed');
    expect(s.plan?.context).toMatchObject({ language: 'zh', domain: 'general', mode: 'standard' });
    const bodies = harness.model.requests.map((r) => JSON.stringify(r.body));
    expect(bodies.filter((b) => b.includes('report_patch')).every((b) => b.includes('Write every patch in the language of the question (zh).'))).toBe(true);
    expect(bodies.find((b) => b.includes('research_plan'))).toContain('Write clarifying_questions, outline, research_brief and assumptions in the language of the question');
  });
});
