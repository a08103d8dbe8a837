// The writer's answer as a real model gives it: more patches than it was asked for, patches that
// do not fit the character budget. Called as the worker calls it (an activity Context, the AI SDK
// provider, the loopback model fake over real HTTP); applying is the report store step's function.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ModelDeps } from '../src/activities/model-call';
import { createRoleTools } from '../src/activities/role-tools';
import { roleActivities } from '../src/roles';
import { reportSkeleton } from '../src/activities/report-activities';
import { DEFAULT_FIT_SETTINGS } from '../src/context-fit/allocate';
import { createModelProvider } from '../src/providers/model/ai-sdk';
import { applyPatches } from '../src/report/markdown';
import { FileArtifactStore } from '../src/stores/artifacts';
import { activityContext } from './harness/activity-context';
import { startModel, type ModelScript } from './harness/model';
import { Recorder } from './harness/recorder';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function writer(script: ModelScript) {
  const fake = await startModel(new Recorder(), script);
  closers.push(() => fake.close());
  const provider = createModelProvider({ kind: 'openai', provider: 'openai', model: 'scripted-model', baseURL: fake.url, apiKey: 'k', structuredOutput: 'auto', timeoutMs: 10_000 });
  const artifacts = new FileArtifactStore(mkdtempSync(path.join(os.tmpdir(), 'dr-writer-')));
  const deps: ModelDeps = { model: () => ({ provider }), defaultModel: () => 'openai:scripted-model', pricing: {}, artifacts, budget: DEFAULT_FIT_SETTINGS };
  return { fake, artifacts, model: roleActivitiesOf(deps) };
}

const outline = ['Causes', 'Effects'];
const findings = Array.from({ length: 21 }, (_, i) => ({ id: `F${i + 1}`, content: `Heat waves in region ${i + 1} grew ${i + 2} days longer since 1990.`, confidence: 'high' as const, source_ids: ['S1'], iteration: 1 }));

describe('a writer that answers with more patches than asked for', () => {
  it('writes the report from all of them instead of failing the research', async () => {
    const patches = findings.map((f, i) => ({ section: outline[i % 2], markdown: `- ${f.content.replace(/\.$/, '')} [S1].` }));
    const { fake, artifacts, model } = await writer({ respond: (name) => (name === 'report_patch' ? { patches } : undefined) });
    const report = await artifacts.put(reportSkeleton('Why are heat waves longer?', outline), { name: 'report.md', kind: 'text' });
    const out = await activityContext().run(() =>
      model.writeReportPatch({ query: 'Why are heat waves longer?', outline, report_file_id: report.file_id, findings, sources: [{ id: 'S1', title: 'Heat', url: 'https://heat.example/' }], max_update_chars: 4_000 }),
    );
    // One call, no repair round: the answer was usable as it came.
    expect(fake.requests.filter((r) => JSON.stringify(r.body).includes('report_patch'))).toHaveLength(1);
    expect(out.usage.repaired).toBeUndefined();
    expect(out.patches.map((p) => p.markdown)).toEqual(patches.map((p) => p.markdown));
    // The model is still asked for at most 20.
    const sent = fake.requests.map((r) => r.body as { response_format?: { json_schema?: { schema?: { properties?: { patches?: { maxItems?: number } } } } } });
    expect(sent[0].response_format?.json_schema?.schema?.properties?.patches?.maxItems).toBe(20);
    const applied = applyPatches(await artifacts.getText(report.file_id), outline, out.patches, 4_000);
    expect(applied.markdown).toContain('Heat waves in region 21 grew 22 days longer since 1990 [S1].');
  });

  it('keeps no more text in history than the patches asked for could hold, however many come', async () => {
    const long = Array.from({ length: 60 }, (_, i) => ({ section: 'Causes', markdown: `Patch ${i}: ${'heat '.repeat(1_000)}` }));
    const { artifacts, model } = await writer({ respond: (name) => (name === 'report_patch' ? { patches: long } : undefined) });
    const report = await artifacts.put(reportSkeleton('Why are heat waves longer?', outline), { name: 'report.md', kind: 'text' });
    const out = await activityContext().run(() =>
      model.writeReportPatch({ query: 'Why are heat waves longer?', outline, report_file_id: report.file_id, findings: findings.slice(0, 2), sources: [], max_update_chars: 800 }),
    );
    // 20 patches of at most 4 × 800 characters each, as before; the first ones kept, in order.
    expect(out.patches.reduce((n, p) => n + p.markdown.length, 0)).toBeLessThanOrEqual(20 * 3_200);
    expect(out.patches.map((p) => p.markdown.slice(0, 9))).toEqual(long.slice(0, out.patches.length).map((p) => p.markdown.slice(0, 9)));
    expect(out.patches.length).toBeGreaterThanOrEqual(12);
  });
});

describe('a patch that does not fit the character budget', () => {
  const skeleton = reportSkeleton('Why are heat waves longer?', outline);
  const bodyOf = (md: string) => md.split('\n').filter((line) => line.trim() && !line.startsWith('#'));

  it.each([3, 5, 10])('leaves no stub when the first patch leaves %i characters', (left) => {
    // Distinct sentences (repeats would be merged), the last one padded to leave exactly `left` characters.
    const said = Array.from({ length: 10 }, (_, i) => `In ${1990 + i} heat waves in region ${i + 1} lasted ${i + 3} days.`).join(' ');
    const first = `- ${said} Its ${'long'.padEnd(800 - left - said.length - 18, 'g')} tail [S1].`;
    expect(first).toHaveLength(800 - left);
    const r = applyPatches(skeleton, outline, [
      { section: 'Causes', markdown: first },
      { section: 'Effects', markdown: '- Zum Beispiel dauern Hitzewellen in Spanien heute neun Tage länger [S2].' },
    ], 800);
    expect(r.added_chars).toBeLessThanOrEqual(800);
    // Every line written has words of its own: no "-…", no "- Zum…".
    for (const line of bodyOf(r.markdown)) expect(line.replace(/^[-*]\s*/, '').replace(/…$/, '').trim().split(/\s+/).length).toBeGreaterThan(2);
    expect(r.markdown).not.toMatch(/^-\s*\S{0,4}…$/m);
    expect(r.markdown).not.toContain('Zum…');
    expect(r.sections_patched).toEqual(['Causes']);
  });

  it('cuts a patch that does not fit after its last whole sentence, never inside one', () => {
    const r = applyPatches(skeleton, outline, [
      { section: 'Causes', markdown: 'Heat domes park over the continent for weeks [S1]. Dry soils heat faster than wet ones [S2]. Jet stream waves grow slower and larger as the Arctic warms [S3].' },
    ], 110);
    expect(r.markdown).toContain('Heat domes park over the continent for weeks [S1]. Dry soils heat faster than wet ones [S2].\n');
    expect(r.markdown).not.toContain('Jet stream');
    expect(r.markdown).not.toContain('…');
  });

  it('skips a patch of which not one sentence fits, and writes a later one that does', () => {
    const r = applyPatches(skeleton, outline, [
      { section: 'Causes', markdown: `Heat ${'and drought '.repeat(40)}feed each other [S1].` },
      { section: 'Effects', markdown: 'Crops fail [S2].' },
    ], 200);
    expect(r.markdown).not.toContain('Heat and');
    expect(r.markdown).toContain('## Effects\n\nCrops fail [S2].');
    expect(r.sections_patched).toEqual(['Effects']);
  });
});

describe('a writer that names sections its own way', () => {
  const sections = ['Overview', 'Criticism and limitations', 'Comparison with alternatives', 'Outlook'];
  const question = 'How did Google Stadia fare?';
  const found = [
    { id: 'F1', content: 'Stadia launched in November 2019.', confidence: 'high' as const, source_ids: ['S1'], iteration: 1 },
    { id: 'F2', content: 'Reviewers found the input latency noticeable.', confidence: 'high' as const, source_ids: ['S2'], iteration: 1, category: 'criticism' },
    { id: 'F3', content: 'GeForce Now offers a larger library.', confidence: 'high' as const, source_ids: ['S3'], iteration: 1 },
    { id: 'F4', content: 'Google closed the service in January 2023.', confidence: 'high' as const, source_ids: ['S4'], iteration: 1 },
  ];
  const sources = found.map((f, i) => ({ id: f.source_ids[0], title: `Stadia ${i + 1}`, url: `https://games.example/${i + 1}` }));
  // Numbered, upper-cased, shortened, with '&', its own heading citing a finding on criticism, and
  // one that says only what it is about.
  const named = [
    { section: '1. OVERVIEW', markdown: '- Stadia launched in November 2019 [S1].' },
    { section: 'Key findings', markdown: '- Reviewers found the input latency noticeable [S2].' },
    { section: 'II) Comparison & Alternatives:', markdown: '- GeForce Now offers a larger library [S3].' },
    { section: 'Conclusion', markdown: '- For the outlook: Google closed the service in January 2023 [S4].' },
    { section: 'Criticism', markdown: '- Some titles ran at a lower resolution than promised [S2].' },
  ];

  it('has each patch written into the outline section it means, not into the last one', async () => {
    const { model, artifacts } = await writer({ respond: (name) => (name === 'report_patch' ? { patches: named } : undefined) });
    const report = await artifacts.put(reportSkeleton(question, sections), { name: 'report.md', kind: 'text' });
    const out = await activityContext().run(() => model.writeReportPatch({ query: question, outline: sections, report_file_id: report.file_id, findings: found, sources, max_update_chars: 4_000 }));
    const applied = applyPatches(await artifacts.getText(report.file_id), sections, out.patches, 4_000, sources, found);
    const body = (title: string) => applied.markdown.split(`## ${title}\n\n`)[1].split('\n## ')[0].trim();
    expect(body('Overview')).toBe('- Stadia launched in November 2019 [S1].');
    expect(body('Criticism and limitations')).toBe('- Reviewers found the input latency noticeable [S2].\n\n- Some titles ran at a lower resolution than promised [S2].');
    expect(body('Comparison with alternatives')).toBe('- GeForce Now offers a larger library [S3].');
    expect(body('Outlook')).toBe('- For the outlook: Google closed the service in January 2023 [S4].');
    expect(applied.sections_patched).toEqual(['Overview', 'Criticism and limitations', 'Comparison with alternatives', 'Outlook']);
    // No heading of the writer's own became a section.
    expect(applied.markdown.match(/^## /gm)).toHaveLength(4);
  });
});

function roleActivitiesOf(deps: ModelDeps) {
  return roleActivities(createRoleTools(deps));
}
