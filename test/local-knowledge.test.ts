// Seed 003's knowledge lookup beside planning: with a folder of the user's own documents, the plan
// is drafted knowing what they already have — while nothing touches the web (no search, no page)
// until the plan is approved.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startEnvironment, startHarness, waitFor, type Harness, type TestEnvironment } from './harness';
import { textOf } from './harness/model-script';

describe('local knowledge while planning', () => {
  let harness: Harness;
  let env: TestEnvironment;
  const docs = mkdtempSync(path.join(os.tmpdir(), 'dr-kb-'));

  beforeAll(async () => {
    writeFileSync(path.join(docs, 'kestrel.md'), '# Project Kestrel sodium-ion trial\n\nOur sodium-ion battery storage trial at the Kestrel site cut cell costs by a fifth.');
    writeFileSync(path.join(docs, 'menu.txt'), 'Lunch menu for Friday: soup and bread.');
    harness = await startHarness({ model: { gapIterations: 0 } });
    env = await startEnvironment(harness, inject('temporalAddress'), { extraEnv: { LOCAL_DOCS_DIR: docs } });
  });
  afterAll(async () => {
    await env?.close();
    await harness?.close();
  });

  it('finds the matching document, the planner builds on it, and the web stays untouched until approval', async () => {
    const before = harness.model.requests.length;
    const { researchId } = await env.client.start({ query: 'sodium-ion battery storage costs', settings: { max_sources: 4, max_iterations: 1 } });
    await waitFor('the plan', async () => (await env.client.state(researchId)).status === 'awaiting_approval');
    const s = await env.client.state(researchId);
    expect(s.local_knowledge?.map((d) => d.title)).toEqual(['Project Kestrel sodium-ion trial']);
    const plannerPrompt = harness.model.requests
      .slice(before)
      .map((r) => (r.body.messages as { content: unknown }[]).map((m) => textOf(m.content)).join('\n'))
      .find((p) => p.includes('sodium-ion battery storage costs'));
    expect(plannerPrompt).toContain("The user's own documents");
    expect(plannerPrompt).toContain('Project Kestrel sodium-ion trial');
    expect(plannerPrompt).not.toContain('Lunch menu');
    expect(s.plan?.expanded_queries[0].query).toBe('sodium-ion battery storage costs beyond Project Kestrel sodium-ion trial');
    // Nothing from the web before approval: no search request, no page fetched.
    expect(harness.recorder.of('search')).toHaveLength(0);
    expect(harness.recorder.of('web')).toHaveLength(0);
    const tools = (await env.client.events(researchId)).filter((e) => e.type === 'ToolCall').map((e) => e.data.tool);
    expect(tools).toEqual(['lookup_local_knowledge', 'decompose_query']);

    await env.client.approve(researchId);
    await env.client.waitForResult(researchId);
    expect(harness.recorder.of('search').length).toBeGreaterThan(0);
  });
});
