// Issue 37's unkind questions in the real-page world (test/harness/real-world.ts: the saved pages
// of ../shared/data/extraction-trafilatura, BM25 search, the grounded model), run as `start --yes`
// runs them: a question whose pages answer in other words than it asks (recipes for "meat-free
// dinners", "Premier arrested" for "authorities fighting drug trafficking") and a Spanish question
// only English pages answer. Skipped when ../shared is absent (a fresh clone).
//
// What it asserts is what a user sees today. Today's words-only relevance skips pages that answer:
// both recipes, two of the three Caribbean pages and the New York Times' blackout article are
// found and never read (bench:report's "relevant pages read"); the assertions of issue 37's goals
// (≥ 90 % of the relevant pages found are read, ≥ 80 % of those cited) belong with its fix.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { labelsFor } from '../src/report/labels';
import type { TestEnvironment } from './harness';
import { corpusAvailable } from './harness/real-pages';
import { JUDGEMENTS, MEANING_QUESTIONS, REAL_PLANS, type RealQuestion } from './harness/real-questions';
import { startRealEnvironment, startRealWorld, type RealWorld } from './harness/real-world';
import { labelsOf } from '../scripts/real-figures';
import { researchAndMeasure, type Measured } from '../scripts/real-runs';

const question = (id: string) => MEANING_QUESTIONS.find((q) => q.id === id) as RealQuestion;

describe.skipIf(!corpusAvailable())('questions only meaning answers, on real pages', () => {
  let world: RealWorld;
  let env: TestEnvironment;
  let sessions: Measured[];

  beforeAll(async () => {
    world = await startRealWorld({ plans: REAL_PLANS });
    env = await startRealEnvironment(world, inject('temporalAddress'));
    sessions = [];
    for (const id of ['es-blackouts', 'meat-free-dinners', 'caribbean-drugs']) sessions.push(await researchAndMeasure(env, world, question(id)));
  });
  afterAll(async () => {
    await env?.close();
    await world?.close();
  });

  const session = (id: string) => sessions.find((s) => s.question.id === id) as Measured;

  it('finishes every session, the Spanish one with its report in Spanish', () => {
    for (const s of sessions) expect(s.status, s.question.id).toBe('completed');
    expect(labelsOf(session('es-blackouts').run.report).sources).toBe(labelsFor('es').sources);
  });

  it('searches the plan so that every page a person judges to answer the question is among its sources', () => {
    for (const s of sessions) {
      const answering = JUDGEMENTS[s.question.id].on_topic;
      expect(s.relevant.returned.length, `${s.question.id}: judged pages the searches return`).toBeGreaterThanOrEqual(2);
      expect([...s.relevant.found].sort(), s.question.id).toEqual([...s.relevant.returned].sort());
      for (const key of s.relevant.found) expect(answering).toContain(key);
    }
  });

  it('cites an English page that answers the Spanish question, and the Premier’s arrest for the Caribbean one', () => {
    expect(session('es-blackouts').relevant.cited.length).toBeGreaterThanOrEqual(1);
    expect(session('caribbean-drugs').relevant.cited.length).toBeGreaterThanOrEqual(1);
  });

  it('cites no page a person judges off topic', () => {
    for (const s of sessions) {
      const off = s.cited.filter((c) => c.verdict === 'off' || c.verdict === 'unjudged');
      expect(off.map((c) => `[${c.id}] ${c.verdict}: ${c.title}`), s.question.id).toEqual([]);
    }
  });
});
