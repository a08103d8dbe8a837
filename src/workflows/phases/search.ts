// Search along the session's provider chain: the first provider that answers, or all of them
// merged. Each provider's calls go to its own rate-limited task queue.
import { ApplicationFailure, isCancellation, workflowInfo } from '@temporalio/workflow';
import type { SearchHit } from '../../activities/contracts';
import { search, searchOn } from '../activities';
import { searchTaskQueue } from '../messages';
import { errorMessage, type ResearchSession } from '../session';
import { reserveBudget } from './budget';

export const NO_SEARCH_PROVIDER_LEFT = 'NoSearchProviderLeft';

export async function searchQuery(s: ResearchSession, query: string): Promise<SearchHit[]> {
  const plan = s.state.providers;
  const maxResults = s.settings.max_search_results_per_query;
  if (!plan) {
    const provider = s.settings.search_provider ?? 'searxng';
    s.state.usage.search_calls += 1;
    const out = await s.tool('web_search', { query, provider }, () => search.webSearch({ query, provider, maxResults }), (r) => ({ hits: r.hits.length }));
    return out.hits;
  }
  const down = (s.state.unavailable_search_providers ??= []);
  const chain = plan.search_chain.filter((p) => !down.includes(p));
  if (plan.search_mode === 'combine') return combined(s, query, chain);
  for (const provider of chain) {
    try {
      return await searchOne(s, provider, query);
    } catch (err) {
      if (isCancellation(err)) throw err;
      markDown(s, provider, err);
    }
  }
  throw noneLeft(s, query);
}

async function searchOne(s: ResearchSession, provider: string, query: string): Promise<SearchHit[]> {
  const maxResults = s.settings.max_search_results_per_query;
  const stub = provider === 'local' ? search : searchOn(searchTaskQueue(workflowInfo().taskQueue, provider));
  await reserveBudget(s, 'search');
  const out = await s.tool('web_search', { query, provider }, () => stub.webSearch({ query, provider, maxResults }), (r) => ({ hits: r.hits.length, ...(r.queued_ms !== undefined ? { queued_ms: r.queued_ms } : {}) }));
  return out.hits;
}

/** Every provider at once; results interleaved by rank and deduplicated by normalized URL. */
async function combined(s: ResearchSession, query: string, chain: string[]): Promise<SearchHit[]> {
  const answers = await Promise.all(
    chain.map(async (provider) => {
      try {
        return await searchOne(s, provider, query);
      } catch (err) {
        if (isCancellation(err)) throw err;
        markDown(s, provider, err);
        return undefined;
      }
    }),
  );
  const lists = answers.filter((a): a is SearchHit[] => a !== undefined);
  if (lists.length === 0) throw noneLeft(s, query);
  const seen = new Set<string>();
  const merged: SearchHit[] = [];
  for (let rank = 0; rank < Math.max(...lists.map((l) => l.length)); rank++) {
    for (const list of lists) {
      const hit = list[rank];
      if (!hit || seen.has(hit.normalized_url)) continue;
      seen.add(hit.normalized_url);
      merged.push(hit);
    }
  }
  return merged;
}

function markDown(s: ResearchSession, provider: string, err: unknown): void {
  const down = (s.state.unavailable_search_providers ??= []);
  if (!down.includes(provider)) down.push(provider);
  const next = s.state.providers?.search_chain.find((p) => !down.includes(p));
  const reason = errorMessage(err);
  s.emit('Status', {
    level: 'warning',
    kind: 'search_fallback',
    from: provider,
    ...(next ? { to: next } : {}),
    reason,
    message: `search provider ${provider} failed (${reason})${next ? `; using ${next} from now on` : ''}`,
  });
}

function noneLeft(s: ResearchSession, query: string): ApplicationFailure {
  const tried = s.state.unavailable_search_providers ?? [];
  return ApplicationFailure.nonRetryable(`no search provider left for "${query}": ${tried.join(', ')} failed`, NO_SEARCH_PROVIDER_LEFT);
}
