// Analysis: a batch of fetched sources becomes findings and gaps. The analyzer reads the stored
// texts (ids only travel) within its token budget; what it could read is kept as fidelity.
import type { Finding, ResearchPlan, Source, SourceFidelity } from '../../domain/types';
import { model } from '../activities';
import type { ResearchSession } from '../session';
import { callModel } from './providers';
import { dropOffQuestion, type RoundTriage, sortForReading, triage } from './judging';

/**
 * Extracts a batch's findings. `knownFindings` is what the analyzer is told is already known (a
 * branch passes what existed before its fan-out plus its own earlier batches, so its input does not
 * depend on which other branch finished first); otherwise the latest 30 findings. `beside`: the
 * round's triage that judges these pages while they are read (a branch's batches).
 */
export async function analyzeBatch(s: ResearchSession, batch: Source[], knownFindings?: string[], feedback?: string[], beside?: RoundTriage): Promise<Finding[]> {
  const st = s.state;
  const { read: readable, judge } = await sortForReading(s, batch.filter((src) => src.status === 'fetched' && src.text_file_id && !src.skipped_off_topic && !src.analyzed));
  if (beside) readable.push(...judge);
  // Outside a round (a stopped run's leftovers, a filling pass), pages the words do not let in are triaged here.
  else if (judge.length) {
    await triage(s, judge);
    readable.push(...judge.filter((src) => !src.skipped_off_topic));
  }
  if (readable.length === 0) return [];
  const plan = st.plan as ResearchPlan;
  const input = {
    query: st.initial_query,
    research_brief: plan.research_brief,
    outline: plan.outline,
    iteration: st.iteration,
    max_iterations: s.settings.max_iterations,
    sources: readable.map((src) => ({ id: src.id, title: src.title, url: src.url, text_file_id: src.text_file_id as string, ...(src.teaser ? { teaser: true } : {}), ...(src.published ? { published: src.published } : {}) })),
    known_findings: knownFindings ?? st.findings.slice(-30).map((f) => f.content),
    max_source_chars: s.settings.max_source_chars_for_analysis,
    ...(feedback?.length ? { research_feedback: feedback } : s.mind.research_feedback?.length ? { research_feedback: s.mind.research_feedback } : {}),
  };
  s.emit('AgentInput', { role: 'analyzer', sources: input.sources.map((x) => x.id), iteration: st.iteration });
  const out = await callModel(s, 'analyzer', (choice) =>
    s.tool('analyze_sources', { sources: input.sources.map((x) => x.id), model: choice }, () => model.analyzeSources({ ...input, model: choice, stream: s.streamTarget() }), (r) => ({
      findings: r.findings.length,
      gaps: r.gaps.length,
      usage: r.usage,
    })),
  );
  recordFidelity(s, out.fidelity, out.budget_tokens);
  const allowed = new Set(readable.map((src) => src.id));
  const findings: Finding[] = out.findings.map((f, i) => ({
    id: `F${st.findings.length + i + 1}`,
    content: f.content,
    // The analyzer may grade beyond low/medium/high (confirmed, speculation).
    confidence: f.graded_confidence ?? f.confidence,
    ...(f.category ? { category: f.category } : {}),
    source_ids: f.source_ids.filter((id) => allowed.has(id)),
    iteration: st.iteration,
  }));
  st.findings.push(...findings);
  for (const source of readable) {
    source.analyzed = true;
    const offQuestion = out.not_addressing?.[source.id];
    if (offQuestion) source.off_question = offQuestion;
    const quality = out.source_quality?.[source.id];
    if (quality) source.quality = quality;
  }
  // A page the triage set aside while it was being read: nothing is kept from it.
  dropOffQuestion(s);
  const kept = new Set(st.findings);
  const gaps = out.gaps.map((gap) => ({ ...gap, addressed: false, iteration: st.iteration }));
  st.gaps.push(...gaps);
  beside?.gapsFrom(gaps, readable);
  s.emit('AgentOutput', { role: 'analyzer', findings: findings.length, gaps: out.gaps.length });
  return findings.filter((f) => kept.has(f));
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
    dropped: entries.filter(([, f]) => f.level === 'dropped').map(([id]) => ({ source_id: id, text_file_id: st.sources.find((x) => x.id === id)?.text_file_id ?? '' })),
  };
  const archived = entries.filter(([, f]) => f.archive_expires_at).sort(([, a], [, b]) => String(a.archive_expires_at).localeCompare(String(b.archive_expires_at)));
  if (archived.length) {
    st.content_archive = { source_ids: archived.map(([id]) => id), expires_at: archived[0][1].archive_expires_at as string, last_expires_at: archived[archived.length - 1][1].archive_expires_at as string };
  }
  const degraded = Object.entries(fidelity).filter(([, f]) => f.level !== 'full');
  if (degraded.length) s.info(`analysis budget ${budget} tokens: ${degraded.map(([id, f]) => `${id} ${f.level}`).join(', ')}`);
}
