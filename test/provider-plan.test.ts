// Which providers serve a session: chains per role, keys, skips, and the price of a call.
import { describe, expect, it } from 'vitest';
import { loadConfig, resolveSettings } from '../src/config/load';
import { costOf } from '../src/providers/model/pricing';
import { modelConnection, resolveProviderPlan } from '../src/providers/registry';

const base = { PATH: process.env.PATH };

describe('provider plan', () => {
  it('skips models whose key is missing, says why, and uses the next in the chain', () => {
    const env = { ...base, ANTHROPIC_API_KEY: 'a-key' };
    const config = loadConfig(env);
    const plan = resolveProviderPlan(config, config.research.settings);
    expect(plan.model_chains.planner).toEqual(['anthropic:claude-haiku-4-5']);
    expect(plan.model_chains.writer).toEqual(['anthropic:claude-haiku-4-5']);
    // The default chains' providers without keys are doctor's business, not the session's record.
    expect(plan.skipped).toEqual([]);
    // DuckDuckGo needs no key, so a fresh machine still has a search engine.
    expect(plan.search_chain).toEqual(['duckduckgo']);
    expect(JSON.stringify(plan)).not.toContain('a-key');
    // What the session names is said when it cannot serve.
    const named = resolveProviderPlan(config, resolveSettings(config.research.settings, { models: { writer: ['google:gemini-2.5-flash', 'anthropic:claude-haiku-4-5'] }, search_providers: ['tavily', 'duckduckgo'] }));
    expect(named.skipped).toEqual([
      { name: 'google:gemini-2.5-flash', reason: 'GOOGLE_GENERATIVE_AI_API_KEY is not set' },
      { name: 'tavily', reason: 'TAVILY_API_KEY is not set' },
    ]);
  });

  it('needs no OpenAI key for a local OpenAI-compatible server, and sessions can name roles and search', () => {
    const env = { ...base, OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1', OPENAI_MODEL: 'llama3.1:8b', GOOGLE_GENERATIVE_AI_API_KEY: 'g', TAVILY_API_KEY: 't' };
    const config = loadConfig(env);
    const settings = resolveSettings(config.research.settings, {
      models: { analyzer: ['google:gemini-2.5-pro', 'openai:llama3.1:8b'] },
      search_providers: ['tavily', 'arxiv', 'brave'],
      search_mode: 'combine',
    });
    const plan = resolveProviderPlan(config, settings);
    expect(plan.model_chains.planner).toEqual(['openai:llama3.1:8b', 'google:gemini-2.5-flash']);
    expect(plan.model_chains.analyzer).toEqual(['google:gemini-2.5-pro', 'openai:llama3.1:8b']);
    expect(plan.search_chain).toEqual(['tavily', 'arxiv']);
    expect(plan.search_mode).toBe('combine');
    expect(plan.skipped).toContainEqual({ name: 'brave', reason: 'BRAVE_API_KEY is not set' });
    const connection = modelConnection(config, 'openai:llama3.1:8b');
    expect(connection).toMatchObject({ kind: 'openai', model: 'llama3.1:8b', baseURL: 'http://127.0.0.1:11434/v1', timeoutMs: 180_000 });
    expect(modelConnection(config, 'openai:o3-mini').timeoutMs).toBe(900_000);
    config.models.role_timeout_seconds = { writer: 420 };
    expect(modelConnection(config, 'openai:llama3.1:8b', 'writer').timeoutMs).toBe(420_000);
    expect(modelConnection(config, 'openai:llama3.1:8b', 'planner').timeoutMs).toBe(180_000);
  });

  it('fails with what to set when no model or no search provider can serve', () => {
    const config = loadConfig(base);
    expect(() => resolveProviderPlan(config, config.research.settings)).toThrow(
      /no model configured: set OPENAI_API_KEY, ANTHROPIC_API_KEY or GOOGLE_GENERATIVE_AI_API_KEY.*skipped: openai:gpt-4o-mini \(OPENAI_API_KEY is not set\)/,
    );
    const env = { ...base, OPENAI_API_KEY: 'k' };
    const settings = resolveSettings(config.research.settings, { search_providers: ['tavily', 'nope'] });
    expect(() => resolveProviderPlan(loadConfig(env), settings)).toThrow(/no search provider available: .*tavily \(TAVILY_API_KEY is not set\); nope \(unknown search provider "nope"/);
    expect(() => resolveSettings(config.research.settings, { model: 'gpt-4o' })).toThrow(/write models as provider:model/);
    expect(() => loadConfig({ ...base, DEEP_RESEARCH_MODEL: 'claude' })).toThrow(/DEEP_RESEARCH_MODEL must be provider:model/);
  });

  it('prices a call from the table, cached input at its own rate', () => {
    const pricing = { 'openai:gpt-4o-mini': { input: 0.15, output: 0.6, cached_input: 0.075 }, 'claude-haiku-4-5': { input: 1, output: 5 } };
    const usage = { input_tokens: 1_000_000, output_tokens: 100_000, cached_input_tokens: 400_000, reasoning_tokens: 0 };
    expect(costOf(pricing, 'openai:gpt-4o-mini', usage)).toBeCloseTo(0.6 * 0.15 + 0.4 * 0.075 + 0.1 * 0.6, 8);
    expect(costOf(pricing, 'anthropic:claude-haiku-4-5', usage)).toBeCloseTo(1 + 0.5, 8);
    expect(costOf(pricing, 'google:unknown', usage)).toBeUndefined();
  });
});
