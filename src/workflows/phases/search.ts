// Search along the session's provider chain: the first provider that answers, or all of them
// merged. Each provider's calls go to its own rate-limited task queue.
import { ApplicationFailure, workflowInfo } from '@temporalio/workflow';
import type { SearchHit } from '../../activities/contracts';
import { searchOn } from '../activities';
import { searchTaskQueue } from '../../contract/names';
import { sessionFilters, type SearchFilters } from '../../domain/filters';
import { errorMessage, type ResearchSession } from '../session';
import { reserveBudget, stopsResearch } from './budget';

/** Every provider of the chain failed for this query. */
export class NoSearchProviderLeft extends Error {
  override name = 'NoSearchProviderLeft';
}

export async function searchQuery(s: ResearchSession, query: string): Promise<SearchHit[]> {
  const plan = s.state.providers;
  if (!plan) throw ApplicationFailure.nonRetryable('no search providers were settled for this session', 'NoProviders');
  const down = (s.state.unavailable_search_providers ??= []);
  const chain = plan.search_chain.filter((p) => !down.includes(p));
  if (plan.search_mode === 'combine') return combined(s, query, chain);
  for (const provider of chain) {
    try {
      return await searchOne(s, provider, query);
    } catch (err) {
      if (stopsResearch(err)) throw err;
      markDown(s, provider, err);
    }
  }
  throw noneLeft(s, query);
}

async function searchOne(s: ResearchSession, provider: string, query: string): Promise<SearchHit[]> {
  const stub = searchOn(searchTaskQueue(workflowInfo().taskQueue, provider));
  reserveBudget(s, 'search');
  const maxResults = s.settings.max_search_results_per_query;
  const filters = filtersOf(s);
  const out = await s.tool('web_search', { query, provider }, () => stub.webSearch({ query, provider, maxResults, ...(filters ? { filters } : {}) }), (r) => ({ hits: r.hits.length, ...(r.queued_ms !== undefined ? { queued_ms: r.queued_ms } : {}), ...(r.left_out ? { left_out: r.left_out } : {}) }));
  if (out.left_out) countLeftOut(s, out.left_out);
  return out.hits;
}

/** The session's date and domain filters, its spans counted back from when it was created. */
export function filtersOf(s: ResearchSession): SearchFilters | undefined {
  return sessionFilters(s.settings, Date.parse(s.state.created_at));
}

/** Pages the filters left out, by why (the report's Notes say how many). */
export function countLeftOut(s: ResearchSession, add: { domain?: number; date?: number }): void {
  const counts = (s.state.left_out ??= { domain: 0, date: 0 });
  counts.domain += add.domain ?? 0;
  counts.date += add.date ?? 0;
}

/** Every provider at once; results interleaved by rank and deduplicated by normalized URL. */
async function combined(s: ResearchSession, query: string, chain: string[]): Promise<SearchHit[]> {
  const answers = await Promise.allSettled(chain.map((provider) => searchOne(s, provider, query)));
  const stop = answers.find((a): a is PromiseRejectedResult => a.status === 'rejected' && stopsResearch(a.reason));
  if (stop) throw stop.reason;
  const lists: SearchHit[][] = [];
  answers.forEach((a, i) => (a.status === 'fulfilled' ? lists.push(a.value) : markDown(s, chain[i], a.reason)));
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

function noneLeft(s: ResearchSession, query: string): NoSearchProviderLeft {
  const tried = s.state.unavailable_search_providers ?? [];
  return new NoSearchProviderLeft(`no search provider left for "${query}": ${tried.join(', ')} failed`);
}
