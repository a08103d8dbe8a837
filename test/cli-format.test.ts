// What the terminal prints: the plan numbered by position (the planner's priority beside it) and
// every phase's token budget for the models that run it.
import { describe, expect, it } from 'vitest';
import { DEFAULT_FIT_SETTINGS } from '../src/context-fit/allocate';
import { phaseBudgets } from '../src/context-fit/phases';
import { formatPlan } from '../src/cli/format';

describe('the plan as the terminal prints it', () => {
  it('numbers queries by position, most important first, with their priority beside them', () => {
    const text = formatPlan({
      clarifying_questions: [],
      research_brief: 'Establish what is known.',
      outline: ['Overview', 'Costs'],
      assumptions: [],
      expanded_queries: [
        { query: 'tidal energy costs', rationale: 'Costs.', priority: 2 },
        { query: 'tidal energy overview', rationale: 'Overview.', priority: 1 },
        { query: 'tidal energy policy', rationale: 'Policy.', priority: 2 },
        { query: 'tidal energy history', rationale: 'History.', priority: 3 },
      ],
    });
    const queries = text.split('\n').filter((l) => /^ {2}\d+\. tidal/.test(l));
    expect(queries).toEqual([
      '  1. tidal energy overview  [priority 1]  — Overview.',
      '  2. tidal energy costs  [priority 2]  — Costs.',
      '  3. tidal energy policy  [priority 2]  — Policy.',
      '  4. tidal energy history  [priority 3]  — History.',
    ]);
  });
});

describe("every phase's token budget", () => {
  it('gives each phase its share of the usable context of the model that runs it', () => {
    const settings = { ...DEFAULT_FIT_SETTINGS, model_context_overrides: { 'ollama:small': 16_000 } };
    const models: Record<string, string> = { planner: 'openai:gpt-4o', analyzer: 'openai:gpt-4o', writer: 'ollama:small', critic: 'openai:gpt-4o', refiner: 'ollama:small' };
    const rows = phaseBudgets(settings, (role) => models[role]);
    const usable128k = (128_000 - 60_000) * 0.85;
    const usable16k = (16_000 - 8_000) * 0.85;
    expect(rows.map((r) => [r.phase, r.role, r.model, r.tokens])).toEqual([
      ['planning', 'planner', 'openai:gpt-4o', Math.floor(usable128k * 0.1)],
      ['analysis', 'analyzer', 'openai:gpt-4o', Math.floor(usable128k * 0.4)],
      ['synthesis', 'writer', 'ollama:small', Math.floor(usable16k * 0.35)],
      ['refinement', 'critic', 'openai:gpt-4o', Math.floor(usable128k * 0.15)],
      ['refinement', 'refiner', 'ollama:small', Math.floor(usable16k * 0.15)],
    ]);
  });

  it('lists refinement once when the critic and the refiner share a model', () => {
    expect(phaseBudgets(DEFAULT_FIT_SETTINGS, () => 'openai:gpt-4o').map((r) => r.phase)).toEqual(['planning', 'analysis', 'synthesis', 'refinement']);
  });
});
