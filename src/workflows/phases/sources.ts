// Sources: a query's search results become sources (deduplicated, within max_sources, vetted),
// each is fetched and parsed into the artifact store, scored for relevance and, where its words
// alone would not let it be read, judged by meaning in the same step (judging.ts).
// A source that fails is noted and skipped; a search with no provider left degrades (seed 001).
import type { FetchUrlOutput, ParseContentInput, SearchHit } from '../../activities/contracts';
import { classifySource } from '../../research/vetting';
import { normalizeUrl } from '../../domain/text';
import type { Source } from '../../domain/types';
import type { FoundTerms } from '../../report/words';
import { renderer, web } from '../activities';
import { errorMessage, type ResearchSession } from '../session';
import { settleAll } from '../concurrency';
import { reserveBudget, stopsResearch } from './budget';
import { foundFor, pageQuestions } from './judging';
import { countLeftOut, filtersOf, NoSearchProviderLeft, searchQuery } from './search';
import { leftOutByDate } from '../../domain/filters';

/** One query's search; a failed search gives no hits, and an outage is recorded. */
export async function searchFor(s: ResearchSession, query: string): Promise<{ query: string; hits: SearchHit[] }> {
  try {
    return { query, hits: await searchQuery(s, query) };
  } catch (err) {
    if (stopsResearch(err)) throw err;
    if (err instanceof NoSearchProviderLeft) recordSearchOutage(s, query, err.message);
    else s.error(`search failed for "${query}": ${errorMessage(err)}`);
    return { query, hits: [] };
  }
}

/** A query's hits as new pending sources: deduplicated by normalized URL, within max_sources, vetted. */
export function addSources(s: ResearchSession, query: string, hits: SearchHit[]): Source[] {
  const st = s.state;
  const known = new Set(st.sources.map((src) => normalizeUrl(src.url)));
  const added: Source[] = [];
  for (const hit of hits.slice(0, s.settings.max_search_results_per_query)) {
    if (st.sources.length >= s.settings.max_sources) break;
    if (known.has(hit.normalized_url)) continue;
    known.add(hit.normalized_url);
    const vetted = classifySource(hit.url, s.settings.vetting_lists);
    const source: Source = {
      id: `S${st.sources.length + 1}`,
      url: hit.url,
      title: hit.title,
      snippet: hit.snippet.slice(0, 300),
      found_as: `${hit.title}\n${hit.snippet.slice(0, 300)}`,
      query,
      iteration: st.iteration,
      status: 'pending',
      tier: vetted.tier,
      credibility: vetted.score,
      ...(hit.provider ? { provider: hit.provider } : {}),
      ...(hit.doi || hit.authors || hit.pdf_url ? { paper: { authors: hit.authors, year: hit.year, doi: hit.doi, pdf_url: hit.pdf_url } } : {}),
    };
    st.sources.push(source);
    added.push(source);
  }
  if (added.length) {
    const tiers: Record<string, number> = {};
    for (const x of added) tiers[x.tier as string] = (tiers[x.tier as string] ?? 0) + 1;
    s.info(`vetted new sources: ${Object.entries(tiers).map(([t, n]) => `${n} ${t}`).join(', ')}`, { kind: 'sources_vetted', tiers });
  }
  return added;
}

/** Every source's tier, its score moved by the analyzer's rating of the source's evidence. */
export function rateSources(s: ResearchSession): void {
  for (const source of s.state.sources) {
    if (source.tier && !source.quality) continue;
    const vetted = classifySource(source.url, s.settings.vetting_lists, source.quality);
    source.tier = vetted.tier;
    source.credibility = vetted.score;
  }
}

/** Seed 001: when no search provider is left, go on with what was gathered and say so. */
function recordSearchOutage(s: ResearchSession, query: string, message: string): void {
  const st = s.state;
  if (!st.search_outage) {
    st.search_outage = { since: new Date().toISOString(), message, queries_not_searched: [] };
    s.emit('Status', { level: 'warning', kind: 'search_outage', message: `every search provider failed (${message}): continuing with the sources already gathered` });
  }
  if (!st.search_outage.queries_not_searched.includes(query)) st.search_outage.queries_not_searched.push(query);
}

/** Search is down and nothing was ever fetched: there is nothing to write a report from. */
export function nothingToWriteFrom(s: ResearchSession): boolean {
  const st = s.state;
  return st.search_outage !== undefined && st.findings.length === 0 && !st.sources.some((x) => x.status === 'fetched');
}

export async function fetchAndParse(s: ResearchSession, batch: Source[]): Promise<void> {
  const found = foundFor(s, batch);
  await settleAll(batch.filter((x) => x.status === 'pending'), s.settings.fetch_concurrency, (source) => fetchOne(s, source, found));
  const fetched = s.state.sources.filter((src) => src.status === 'fetched').length;
  s.info(`fetched ${fetched} of ${s.state.sources.length} sources`);
}

async function fetchOne(s: ResearchSession, source: Source, found: FoundTerms): Promise<void> {
  try {
    reserveBudget(s, 'fetch');
    const relevance = { ...pageQuestions(s), sub_question: source.query, found };
    const fetched = await s.tool('fetch_url', { url: source.url, source_id: source.id }, () => web.fetchUrl({ url: source.url, parse: { relevance } }), summarizeFetch);
    if (fetched.unrendered) source.unrendered = 'fetch.render is never';
    const raw = fetched.render ? await rendered(s, source, fetched, relevance) : fetched;
    Object.assign(source, { file_id: raw.file_id, final_url: raw.final_url, content_type: raw.content_type, retrieved_at: raw.fetched_at });
    s.state.artifacts.push({ file_id: raw.file_id, name: `${source.id}-raw`, kind: raw.kind, source_url: source.url });
    const parsed = raw.parsed;
    if (!parsed) throw new Error(raw.parse_error ?? `no text parsed from ${raw.final_url}`);
    if (parsed.relevance !== undefined) source.relevance = parsed.relevance;
    if (parsed.judged) source.judged = parsed.judged;
    if (parsed.teaser) source.teaser = true;
    Object.assign(source, {
      text_file_id: parsed.text_file_id,
      meta_file_id: parsed.meta_file_id,
      ...datesOf(parsed),
      language: parsed.language,
      chars: parsed.chars,
      status: 'fetched',
    });
    if (parsed.title) source.title = parsed.title;
    if (parsed.snippet) source.snippet = parsed.snippet;
    const outside = leftOutByDate(source.published, filtersOf(s));
    if (outside) leaveOutOfRange(s, source, outside);
    s.state.artifacts.push({ file_id: parsed.text_file_id, name: `${source.id}-text`, kind: 'text', source_url: source.url });
  } catch (err) {
    if (stopsResearch(err)) throw err;
    source.status = 'failed';
    source.notes = errorMessage(err);
    s.error(`source ${source.id} (${source.url}) failed: ${source.notes}`, source.id);
  }
}

const summarizeFetch = (r: FetchUrlOutput) => ({
  file_id: r.file_id,
  status: r.status,
  content_type: r.content_type,
  size: r.size,
  from_cache: r.from_cache ?? false,
  ...(r.parsed ? { text_file_id: r.parsed.text_file_id, chars: r.parsed.chars, title: r.parsed.title, ...(r.parsed.relevance !== undefined ? { relevance: r.parsed.relevance } : {}), ...(r.parsed.judged ? { judged: r.parsed.judged } : {}) } : {}),
  ...(r.parse_error ? { parse_error: r.parse_error } : {}),
  ...(r.render ? { render: r.render } : {}),
});

/**
 * A page whose text its scripts build, rendered; its HTML as fetched is kept beside the rendered copy.
 * When nothing here can render it, or the render fails, it is read as its HTML stands (often: not
 * at all) and the report's Notes say how many pages needed a browser.
 */
async function rendered(s: ResearchSession, source: Source, page: FetchUrlOutput, relevance: ParseContentInput['relevance']): Promise<FetchUrlOutput> {
  try {
    const out = await s.tool(
      'render_page',
      { url: source.url, source_id: source.id, reason: page.render },
      () => renderer.renderPage({ url: source.url, final_url: page.final_url, file_id: page.file_id, content_type: page.content_type, reason: page.render as string, parse: { relevance } }),
      (r) => ({ ...summarizeFetch(r), rendered_by: r.rendered_by ?? 'cache', ...(r.requests !== undefined ? { requests: r.requests, refused: r.refused } : {}) }),
    );
    source.rendered_by = out.rendered_by ?? 'cache';
    s.state.artifacts.push({ file_id: page.file_id, name: `${source.id}-unrendered`, kind: page.kind, source_url: source.url });
    return out;
  } catch (err) {
    if (stopsResearch(err)) throw err;
    const unavailable = (err as { cause?: { type?: string } }).cause?.type === 'BrowserUnavailable';
    source.unrendered = unavailable ? 'no browser' : `the render failed: ${errorMessage(err).slice(0, 200)}`;
    s.warn(`source ${source.id} (${source.url}) needs a browser (${page.render}) and was read as its HTML stands: ${errorMessage(err)}`, source.id);
    return page;
  }
}

/** The dates a parsed document states, with where each was read; none when it states none. */
function datesOf(parsed: { published?: string; published_from?: string; updated?: string; updated_from?: string }): Partial<Source> {
  return {
    ...(parsed.published ? { published: parsed.published, ...(parsed.published_from ? { published_from: parsed.published_from } : {}) } : {}),
    ...(parsed.updated ? { updated: parsed.updated, ...(parsed.updated_from ? { updated_from: parsed.updated_from } : {}) } : {}),
  };
}

/** A page whose own date is outside the session's since/until: never read or cited, counted in the Notes. */
function leaveOutOfRange(s: ResearchSession, source: Source, why: string): void {
  source.out_of_range = why;
  source.skipped_off_topic = true;
  source.analyzed = true;
  source.notes = `left unread: ${why}`;
  countLeftOut(s, { date: 1 });
  s.info(`source ${source.id} left unread (${why}): ${source.url}`);
}
