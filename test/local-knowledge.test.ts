// Seed 003's knowledge lookup beside planning: with a folder of the user's own documents, the plan
// is drafted knowing what they already have — while nothing touches the web (no search, no page)
// until the plan is approved.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createActivities } from '../src/activities';
import { loadConfig } from '../src/config/load';
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

describe('which of the user notes the planner sees', () => {
  const notes = mkdtempSync(path.join(os.tmpdir(), 'dr-kb-notes-'));
  writeFileSync(path.join(notes, 'menu.txt'), 'Lunch menu for Friday: the soup of the day is on the board, and bread is free.');
  writeFileSync(path.join(notes, 'offsite.md'), '# Team offsite\n\nThe offsite is in the mountains this year; the bus leaves at eight and boots are a must.');
  writeFileSync(path.join(notes, 'travel.md'), '# Travel budget\n\nOur travel budget for the year is tight: trains over planes where the trip is short.');
  writeFileSync(path.join(notes, 'microplastics.md'), '# Microplastics in the Baltic\n\nOur survey counted microplastics in Baltic sea water samples; fibres from textiles dominated.');
  writeFileSync(path.join(notes, 'reef.md'), '# Reef health notes\n\nBleaching hit the coral reef health index hard this summer.');

  async function lookup(query: string): Promise<string[]> {
    const env = { DEEP_RESEARCH_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'dr-kb-data-')), LOCAL_DOCS_DIR: notes };
    const { activities, close } = createActivities({ config: loadConfig(env) });
    try {
      return (await activities.lookupLocalKnowledge({ query, maxResults: 5 })).hits.map((h) => h.title).sort();
    } finally {
      await close();
    }
  }

  it('hands the planner no note for a question none of them is about, though they share its little words', async () => {
    expect(await lookup('What is the state of the art in solid-state batteries for the car industry?')).toEqual([]);
  });

  it('hands the planner the notes that match the question, and only those', async () => {
    expect(await lookup('How much microplastics pollution is in Baltic sea water?')).toEqual(['Microplastics in the Baltic']);
    expect(await lookup('coral reef health')).toEqual(['Reef health notes']);
  });

  it('leaves out a note that shares a few common words with the question, and keeps the one about it', async () => {
    writeFileSync(path.join(notes, 'tax.md'), '# Tax checklist 2024\n\n- Income from streaming and freelance services\n- Receipts for the gaming PC (work equipment) and what it cost\n- Home office days\n- File before 31 July');
    writeFileSync(path.join(notes, 'cloud-gaming.md'), '# Cloud game streaming\n\nGame streaming services such as GeForce Now and Xbox Cloud Gaming keep growing: subscriptions rose again, and a month costs about ten euros.');
    try {
      expect(await lookup('How fast are game streaming services growing, and what do they cost?')).toEqual(['Cloud game streaming']);
    } finally {
      rmSync(path.join(notes, 'tax.md'));
      rmSync(path.join(notes, 'cloud-gaming.md'));
    }
  });

  it('leaves out a note that shares a single word in passing with a longer question', async () => {
    expect(await lookup('Which trains run overnight between Berlin and Vienna, and how long do they take?')).toEqual([]);
  });
});
