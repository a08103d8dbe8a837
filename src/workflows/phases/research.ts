// The research loop: search → fetch and parse → analyze → patch the report, batch after batch,
// iterating on open gaps. All progress lives in `state`, so a continued-as-new run resumes here.
import { allHandlersFinished, ApplicationFailure, condition, continueAsNew, isCancellation, patched, workflowInfo } from '@temporalio/workflow';
import type { SearchHit } from '../../activities/contracts';
import { model, web } from '../activities';
import { errorMessage, type ResearchSession } from '../session';
import type { Finding, ResearchPlan, Source, SourceFidelity } from '../../domain/types';
import { reserveBudget } from './budget';
import { relevanceGateOn, skipOffTopic } from './relevance';
import { persistSession } from './persist';
import { withModelFallback } from './providers';
import { NO_SEARCH_PROVIDER_LEFT, searchQuery } from './search';
import { normalizeUrl } from '../../domain/text';

export async function runResearch(s: ResearchSession): Promise<void> {
  const st = s.state;
  if (st.iteration === 0) startFirstIteration(s);
  for (;;) {
    if (st.pending_queries.length > 0) await searchBatch(s);
    for (let batch = nextBatch(s); batch.length > 0; batch = nextBatch(s)) {
      await fetchAndParse(s, batch);
      const findings = await analyzeBatch(s, batch);
      if (findings.length > 0) await patchReport(s, findings);
      await persistSession(s);
      await continueAsNewIfDue(s);
    }
    if (!startNextIteration(s)) return;
  }
}

export function startFirstIteration(s: ResearchSession): void {
  const plan = s.state.plan as ResearchPlan;
  s.state.iteration = 1;
  s.state.pending_queries = [...plan.expanded_queries].sort((a, b) => a.priority - b.priority).map((q) => q.query);
  s.state.report_markdown = reportSkeleton(s.state.initial_query, plan.outline);
  s.info(`iteration 1 of ${s.settings.max_iterations}: ${s.state.pending_queries.length} queries`);
}

/** Next iteration on unresolved gaps, if any remain and iterations are left. */
export function startNextIteration(s: ResearchSession): boolean {
  const st = s.state;
  const open = st.gaps.filter((g) => !g.addressed).sort((a, b) => a.priority - b.priority);
  if (open.length === 0) {
    s.info('no open gaps: research complete');
    return false;
  }
  if (st.iteration >= s.settings.max_iterations) {
    s.info(`${open.length} gaps still open, but all ${s.settings.max_iterations} iterations are used`);
    return false;
  }
  if (st.sources.length >= s.settings.max_sources) {
    s.info(`${open.length} gaps still open, but the source budget (${s.settings.max_sources}) is used`);
    return false;
  }
  const searched = new Set(st.searched_queries.map(normalizeQuery));
  const queries: string[] = [];
  for (const gap of open) {
    gap.addressed = true;
    for (const q of gap.suggested_queries) {
      const key = normalizeQuery(q);
      if (!searched.has(key) && queries.length < Math.max(2, st.plan?.expanded_queries.length ?? 3)) {
        searched.add(key);
        queries.push(q);
      }
    }
  }
  if (queries.length === 0) {
    s.info('open gaps suggest no new queries: research complete');
    return false;
  }
  st.iteration += 1;
  st.pending_queries = queries;
  s.info(`iteration ${st.iteration} of ${s.settings.max_iterations}: ${queries.length} queries for ${open.length} gaps`);
  return true;
}

export async function searchBatch(s: ResearchSession): Promise<void> {
  const st = s.state;
  s.setPhase('searching');
  const queries = st.pending_queries;
  if (st.search_outage) {
    st.search_outage.queries_not_searched.push(...queries.filter((q) => !st.search_outage?.queries_not_searched.includes(q)));
    st.pending_queries = [];
    s.info(`search is unavailable: ${queries.length} queries not searched`);
    return;
  }
  const results = await pool(queries, s.settings.fetch_concurrency, (query) => searchForBranch(s, query));
  let added = 0;
  for (const { query, hits } of results) added += addSources(s, query, hits).length;
  st.searched_queries.push(...queries);
  st.pending_queries = [];
  s.info(`search: ${added} new sources (${st.sources.length} of at most ${s.settings.max_sources})`);
}

/** One query's search; a failed search gives no hits, and an outage is recorded (seed 001). */
export async function searchForBranch(s: ResearchSession, query: string): Promise<{ query: string; hits: SearchHit[] }> {
  try {
    return { query, hits: await searchQuery(s, query) };
  } catch (err) {
    if (err instanceof ApplicationFailure && err.type === NO_SEARCH_PROVIDER_LEFT && patched('search-outage-degrades')) {
      recordSearchOutage(s, query, errorMessage(err));
      return { query, hits: [] as SearchHit[] };
    }
    if (isCancellation(err) || (err instanceof ApplicationFailure && err.type === NO_SEARCH_PROVIDER_LEFT)) throw err;
    s.error(`search failed for "${query}": ${errorMessage(err)}`);
    return { query, hits: [] as SearchHit[] };
  }
}

/** A query's hits as new pending sources: deduplicated by normalized URL, within max_sources. */
export function addSources(s: ResearchSession, query: string, hits: SearchHit[]): Source[] {
  const st = s.state;
  const known = new Set(st.sources.map((src) => normalizeUrl(src.url)));
  const added: Source[] = [];
  for (const hit of hits.slice(0, s.settings.max_search_results_per_query)) {
    if (st.sources.length >= s.settings.max_sources) break;
    if (known.has(hit.normalized_url)) continue;
    known.add(hit.normalized_url);
    const source: Source = {
      id: `S${st.sources.length + 1}`,
      url: hit.url,
      title: hit.title,
      snippet: hit.snippet.slice(0, 300),
      query,
      iteration: st.iteration,
      status: 'pending',
      ...(hit.provider ? { provider: hit.provider } : {}),
      ...(hit.doi || hit.authors || hit.pdf_url ? { paper: { authors: hit.authors, year: hit.year, doi: hit.doi, pdf_url: hit.pdf_url } } : {}),
    };
    st.sources.push(source);
    added.push(source);
  }
  return added;
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

export function nextBatch(s: ResearchSession): Source[] {
  return s.state.sources.filter((src) => src.status === 'pending').slice(0, s.settings.batch_size);
}

export async function fetchAndParse(s: ResearchSession, batch: Source[]): Promise<void> {
  s.setPhase('fetching');
  await pool(batch, s.settings.fetch_concurrency, (source) => fetchOne(s, source));
  const fetched = s.state.sources.filter((src) => src.status === 'fetched').length;
  s.info(`fetched ${fetched} of ${s.state.sources.length} sources`);
}

async function fetchOne(s: ResearchSession, source: Source): Promise<void> {
  try {
    await reserveBudget(s, 'fetch');
    const raw = await s.tool('fetch_url', { url: source.url, source_id: source.id }, () => web.fetchUrl({ url: source.url }), (r) => ({
      file_id: r.file_id,
      status: r.status,
      content_type: r.content_type,
      size: r.size,
      from_cache: r.from_cache ?? false,
    }));
    Object.assign(source, { file_id: raw.file_id, final_url: raw.final_url, content_type: raw.content_type, retrieved_at: raw.fetched_at });
    s.state.artifacts.push({ file_id: raw.file_id, name: `${source.id}-raw`, kind: raw.kind, source_url: source.url });
    const parsed = await s.tool(
      'parse_content',
      { file_id: raw.file_id, source_id: source.id },
      () => web.parseContent({ file_id: raw.file_id, content_type: raw.content_type, url: raw.final_url }),
      (r) => ({ text_file_id: r.text_file_id, chars: r.chars, title: r.title }),
    );
    Object.assign(source, {
      text_file_id: parsed.text_file_id,
      meta_file_id: parsed.meta_file_id,
      published: parsed.published,
      language: parsed.language,
      chars: parsed.chars,
      status: 'fetched',
    });
    if (parsed.title) source.title = parsed.title;
    if (parsed.snippet) source.snippet = parsed.snippet;
    s.state.artifacts.push({ file_id: parsed.text_file_id, name: `${source.id}-text`, kind: 'text', source_url: source.url });
  } catch (err) {
    if (isCancellation(err)) throw err;
    source.status = 'failed';
    source.notes = errorMessage(err);
    s.error(`source ${source.id} (${source.url}) failed: ${source.notes}`, source.id);
  }
}

/**
 * Extracts a batch's findings. `knownFindings`, when given, is what the analyzer is told is already
 * known (a branch passes what existed before its fan-out plus its own earlier batches, so its input
 * does not depend on which other branch finished first); otherwise the latest 30 findings.
 */
export async function analyzeBatch(s: ResearchSession, batch: Source[], knownFindings?: string[]): Promise<Finding[]> {
  const st = s.state;
  const readable = batch.filter((src) => src.status === 'fetched' && src.text_file_id && !src.skipped_off_topic);
  const fetched = relevanceGateOn() ? await skipOffTopic(s, readable) : readable;
  if (fetched.length === 0) return [];
  s.setPhase('analyzing');
  const plan = st.plan as ResearchPlan;
  const input = {
    query: st.initial_query,
    research_brief: plan.research_brief,
    outline: plan.outline,
    iteration: st.iteration,
    max_iterations: s.settings.max_iterations,
    sources: fetched.map((src) => ({ id: src.id, title: src.title, url: src.url, text_file_id: src.text_file_id as string })),
    known_findings: knownFindings ?? st.findings.slice(-30).map((f) => f.content),
    max_source_chars: s.settings.max_source_chars_for_analysis,
    ...(st.mind?.research_feedback?.length ? { research_feedback: st.mind.research_feedback } : {}),
  };
  s.emit('AgentInput', { role: 'analyzer', sources: input.sources.map((x) => x.id), iteration: st.iteration });
  const out = await withModelFallback(s, 'analyzer', (choice) =>
    s.tool('analyze_sources', { sources: input.sources.map((x) => x.id), model: choice }, () => model.analyzeSources({ ...input, model: choice, stream: s.streamTarget() }), (r) => ({
      findings: r.findings.length,
      gaps: r.gaps.length,
      usage: r.usage,
    })),
  );
  s.addModelUsage(out.usage);
  // Results recorded before token budgets existed carry no fidelity: replay must accept them.
  if (out.fidelity) recordFidelity(s, out.fidelity, out.budget_tokens);
  const allowed = new Set(fetched.map((src) => src.id));
  const findings: Finding[] = out.findings.map((f, i) => ({
    id: `F${st.findings.length + i + 1}`,
    content: f.content,
    // The analyzer may grade beyond low/medium/high (confirmed, speculation); older results may not.
    confidence: f.graded_confidence ?? f.confidence,
    ...(f.category ? { category: f.category } : {}),
    source_ids: f.source_ids.filter((id) => allowed.has(id)),
    iteration: st.iteration,
  }));
  st.findings.push(...findings);
  for (const source of fetched) source.analyzed = true;
  if (out.source_quality) {
    for (const source of fetched) {
      const quality = out.source_quality[source.id];
      if (quality) source.quality = quality;
    }
  }
  for (const gap of out.gaps) st.gaps.push({ ...gap, addressed: false, iteration: st.iteration });
  s.emit('AgentOutput', { role: 'analyzer', findings: findings.length, gaps: out.gaps.length });
  return findings;
}

function recordFidelity(s: ResearchSession, fidelity: Record<string, SourceFidelity>, budget: number): void {
  const st = s.state;
  const all = (st.content_fidelity ??= {});
  Object.assign(all, fidelity);
  const entries = Object.entries(all);
  const full = entries.reduce((sum, [, f]) => sum + f.full_tokens, 0);
  const allocated = entries.reduce((sum, [, f]) => sum + f.allocated_tokens, 0);
  st.content_allocation_metadata = {
    analysis_budget_tokens: budget,
    overall_fidelity: full ? Math.round((allocated / full) * 1000) / 1000 : 1,
    condensed: entries.filter(([, f]) => f.level !== 'full' && f.level !== 'dropped').map(([id]) => id),
    dropped: entries
      .filter(([, f]) => f.level === 'dropped')
      .map(([id]) => ({ source_id: id, text_file_id: st.sources.find((x) => x.id === id)?.text_file_id ?? '' })),
  };
  const degraded = Object.entries(fidelity).filter(([, f]) => f.level !== 'full');
  if (degraded.length) s.info(`analysis budget ${budget} tokens: ${degraded.map(([id, f]) => `${id} ${f.level}`).join(', ')}`);
}

export async function patchReport(s: ResearchSession, findings: Finding[]): Promise<void> {
  const st = s.state;
  s.setPhase('updating_report');
  const cited = new Set(findings.flatMap((f) => f.source_ids));
  const sources = st.sources.filter((src) => cited.has(src.id)).map((src) => ({ id: src.id, title: src.title, url: src.url }));
  const callId = st.supervised ? s.nextCallId('update_report') : `update_report-${st.continued_runs}-${st.findings.length}`;
  s.emit('ToolCall', { tool: 'update_report', call_id: callId, args: { findings: findings.length } });
  const out = await withModelFallback(s, 'writer', (choice) =>
    model.updateReport({
      query: st.initial_query,
      outline: (st.plan as ResearchPlan).outline,
      report_markdown: st.report_markdown,
      findings,
      sources,
      max_update_chars: s.settings.max_report_update_size,
      ...((st.plan as ResearchPlan).context?.language ? { language: (st.plan as ResearchPlan).context?.language } : {}),
      model: choice,
      stream: s.streamTarget(),
      ...(st.pipelined ? { store_report: true } : {}),
    }),
  );
  // Every finding repeated the report: the writer was not called.
  if (out.usage.input_tokens || out.usage.output_tokens) s.addModelUsage(out.usage);
  // The live report is in state before anyone can see the tool result that announces it.
  st.report_markdown = out.new_report_markdown;
  if (out.merged?.length) (st.merged_claims ??= []).push(...out.merged.slice(0, 50));
  s.emit('ToolCallResult', {
    tool: 'update_report',
    call_id: callId,
    ok: true,
    result: {
      // Pipelined sessions keep the report once, in state; the event names the stored version,
      // and clients reading events get its text filled in from the artifact store.
      ...(st.pipelined && out.report_file_id
        ? { report_file_id: out.report_file_id, report_chars: out.new_report_markdown.length }
        : { new_report_markdown: out.new_report_markdown }),
      sections_patched: out.sections_patched,
      added_chars: out.added_chars,
      usage: out.usage,
      ...(out.merged?.length ? { merged_claims: out.merged.length } : {}),
    },
  });
}

export async function continueAsNewIfDue(s: ResearchSession): Promise<void> {
  const info = workflowInfo();
  const limit = s.settings.continue_as_new_after_events;
  if (!info.continueAsNewSuggested && !(limit > 0 && info.historyLength >= limit)) return;
  await condition(allHandlersFinished);
  s.state.continued_runs += 1;
  s.info(`continuing as new after ${info.historyLength} history events (run ${s.state.continued_runs + 1})`);
  await persistSession(s, { final: true });
  await continueAsNew<(input: typeof s.input) => Promise<unknown>>({ ...s.input, resume: s.state });
}

export function reportSkeleton(query: string, outline: string[]): string {
  const sections = outline.map((title) => `## ${title}\n\n_Research in progress._\n`).join('\n');
  return `# ${query.trim()}\n\n${sections}`;
}

export function normalizeQuery(q: string): string {
  return q.toLowerCase().replace(/\s+/g, ' ').trim();
}

/** Runs `fn` over `items` with at most `limit` in flight; results keep the input order. */
export async function pool<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
  return results;
}
