import type { PhaseBudget } from '../context-fit/phases';
import { budgetLimits, budgetUsed } from '../research/budget';
import { panelSummary } from '../domain/panel';
import type { ResearchEvent, ResearchPlan, ResearchSnapshot } from '../domain/types';
import { TERMINAL_STATUSES } from '../domain/names';
import { loopProgress } from '../domain/position';

export function formatPlan(plan: ResearchPlan): string {
  const lines = ['Research plan', '', `Brief: ${plan.research_brief}`, '', 'Search queries (most important first):'];
  // Numbered by position; the planner's priority beside it (several queries may share one).
  [...plan.expanded_queries]
    .sort((a, b) => a.priority - b.priority)
    .forEach((q, i) => lines.push(`  ${i + 1}. ${q.query}  [priority ${q.priority}]${q.rationale ? `  — ${q.rationale}` : ''}`));
  lines.push('', 'Report outline:', ...plan.outline.map((s, i) => `  ${i + 1}. ${s}`));
  if (plan.assumptions.length) lines.push('', 'Assumptions:', ...plan.assumptions.map((a) => `  - ${a}`));
  if (plan.clarifying_questions.length) lines.push('', 'Clarifying questions:', ...plan.clarifying_questions.map((q, i) => `  ${i + 1}. ${q}`));
  return lines.join('\n');
}

export function progressLine(s: ResearchSnapshot, width = 24): string {
  const fetched = s.sources.filter((x) => x.status === 'fetched').length;
  const failed = s.sources.filter((x) => x.status === 'failed').length;
  const planned = Math.max(s.sources.length, 1);
  const done = Math.round(((fetched + failed) / planned) * width);
  const bar = `[${'#'.repeat(done)}${'-'.repeat(Math.max(0, width - done))}]`;
  return `${s.status.padEnd(11)} ${s.phase.padEnd(15)} iteration ${s.iteration}/${s.settings.max_iterations} ${bar} ${fetched}/${s.sources.length} sources${failed ? ` (${failed} failed)` : ''}, report ${s.report_markdown.length} chars`;
}

const usd = (dollars: number) => `$${dollars < 0.01 && dollars > 0 ? dollars.toFixed(5) : dollars.toFixed(2)}`;

/** The token budget of each phase's model calls: how much prompt one call may carry. */
export interface StatusBudgets {
  /** token_management_enabled: off, prompts go out as written and the budgets are only reported. */
  enabled: boolean;
  phases: PhaseBudget[];
}

// Thousands with commas, as en-US writes them (toLocaleString's first call costs ~15 ms of ICU set-up).
const count = (n: number) => String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

function budgetLines(s: ResearchSnapshot, budgets: StatusBudgets | undefined): string[] {
  if (!budgets?.phases.length) return [];
  const width = Math.max(...budgets.phases.map((b) => b.phase.length));
  const recorded = s.content_allocation_metadata;
  const lines = budgets.phases.map((b) => {
    const last = b.phase === 'analysis' && recorded ? `; last analysis call ${count(recorded.analysis_budget_tokens)}, content fidelity ${recorded.overall_fidelity}` : '';
    return `  ${b.phase.padEnd(width)} ${count(b.tokens).padStart(9)} tokens (${Math.round(b.share * 100)} % of the usable context; ${b.role} ${b.model}, ${count(b.context_tokens)}-token window${b.window_from ? `, as ${b.window_from} says` : ''}${last})`;
  });
  return [`token budget per model call${budgets.enabled ? '' : ' (token management off: reported, not enforced)'}:`, ...lines];
}

export function formatStatus(s: ResearchSnapshot, budgets?: StatusBudgets): string {
  const u = s.usage;
  const tokens = Object.entries(u.tokens_by_role)
    .map(([role, t]) => `${role} ${t.input_tokens}+${t.output_tokens}${t.cost_usd ? ` ${usd(t.cost_usd)}` : ''}`)
    .join(', ');
  const byModel = Object.entries(u.tokens_by_model ?? {})
    .map(([model, t]) => `${model}: ${t.calls} calls, ${t.input_tokens} in (${t.cached_input_tokens ?? 0} cached), ${t.output_tokens} out (${t.reasoning_tokens ?? 0} reasoning), ${usd(t.cost_usd ?? 0)}`);
  const providers = s.providers
    ? [`models: ${Object.entries(s.providers.model_chains).filter(([, c]) => c.length).map(([role, c]) => `${role} ${c[0]}`).join(', ')}`, `search: ${s.providers.search_chain.join(s.providers.search_mode === 'combine' ? ' + ' : ' → ')}${s.unavailable_search_providers?.length ? ` (failed: ${s.unavailable_search_providers.join(', ')})` : ''}`]
    : [];
  return [
    `research ${s.research_id}: ${s.status}${s.reason ? ` (${s.reason})` : ''}`,
    `question: ${s.initial_query}`,
    `phase: ${s.phase}, iteration ${s.iteration}/${s.settings.max_iterations}`,
    `sources: ${s.sources.filter((x) => x.status === 'fetched').length} fetched, ${s.sources.filter((x) => x.status === 'failed').length} failed, ${s.sources.length} found`,
    `findings: ${s.findings.length}, open gaps: ${s.gaps.filter((g) => !g.addressed).length}`,
    ...providers,
    ...panelLines(s),
    `usage: ${u.model_calls} model calls (${tokens || 'no tokens'}), ${u.search_calls} searches, ${u.fetch_calls} fetches${u.cost_usd !== undefined ? `, cost ${usd(u.cost_usd)}` : ''}`,
    ...byModel.map((line) => `  ${line}`),
    ...budgetLines(s, budgets),
    `report: ${s.report_markdown.length} characters`,
    ...archiveLines(s, Date.now()),
    ...clarificationLines(s),
    ...mindLines(s),
    ...deliveryLines(s),
    ...(s.errors.length ? [`errors: ${s.errors.length} (last: ${s.errors[s.errors.length - 1].message})`] : []),
  ].join('\n');
}

/** The panel as the worker settled it: each member and how its answer went, and who was left out and why. */
export function panelLines(s: ResearchSnapshot): string[] {
  const summary = panelSummary(s);
  if (!summary) return [];
  const members = summary.members.map((m) => (m.error ? `${m.model} (FAILED: ${m.error})` : `${m.model}${m.status !== 'pending' ? ` (${m.status})` : ''}`));
  return [
    `panel: ${members.length ? members.join(', ') : 'no model (choose one at approval: --panel)'}`,
    ...summary.left_out.map((d) => `  left out of the panel: ${d.model} (${d.reason})`),
  ];
}

function mindLines(s: ResearchSnapshot): string[] {
  const mind = s.mind;
  if (!mind) return [];
  const passed = mind.gates.filter((g) => g.passed).length;
  const failed = mind.gates.filter((g) => !g.passed);
  const used = budgetUsed(s, Date.parse(s.updated_at));
  const limits = budgetLimits(s.settings, mind.budget_topups);
  const of = (key: keyof typeof limits, fmt = (n: number) => String(n)) => `${fmt(used[key])}${limits[key] !== undefined ? ` of ${fmt(limits[key] as number)}` : ''}`;
  const tiers = s.sources.reduce<Record<string, number>>((acc, x) => (x.tier ? { ...acc, [x.tier]: (acc[x.tier] ?? 0) + 1 } : acc), {});
  return [
    `supervisor: ${s.position ? loopProgress(s.position) : 'PLANNING'}, critic revisions ${mind.reflexion_revisions}, review rounds ${mind.review_rounds}`,
    `gates: ${passed} passed, ${failed.length} failed${failed.length ? ` (last: ${failed[failed.length - 1].phase}: ${failed[failed.length - 1].failures.join('; ')})` : ''}`,
    `budget used: tokens ${of('tokens')}, cost ${of('cost_usd', usd)}, searches ${of('searches')}, fetches ${of('fetches')}`,
    ...(Object.keys(tiers).length ? [`source tiers: ${Object.entries(tiers).map(([t, n]) => `${t} ${n}`).join(', ')}`] : []),
    ...(mind.contradictions.length ? [`contradictions: ${mind.contradictions.map((c) => c.description).join(' | ')}`] : []),
    'decisions:',
    ...mind.agent_decisions.slice(-15).map((d) => `  ${d.timestamp.slice(11, 19)} ${d.agent} ${d.action}: ${d.rationale}`),
  ];
}

export function formatEvent(e: ResearchEvent): string {
  const time = e.time.slice(11, 19);
  const d = e.data as Record<string, unknown>;
  switch (e.type) {
    case 'Status':
      return `${time} #${e.seq} ${String(d.level).toUpperCase()} ${d.message}`;
    case 'ToolCall':
      return `${time} #${e.seq} → ${d.tool} ${JSON.stringify(d.args)}`;
    case 'ToolCallResult':
      return `${time} #${e.seq} ← ${d.tool} ${d.ok ? 'ok' : `failed: ${d.error}`}`;
    case 'AgentStream':
      return `${time} #${e.seq} ${d.role} … ${String(d.delta ?? '').replace(/\s+/g, ' ').slice(0, 120)}`;
    default:
      return `${time} #${e.seq} ${e.type} ${JSON.stringify(d).slice(0, 160)}`;
  }
}

function deliveryLines(s: ResearchSnapshot): string[] {
  const log = s.delivery_log ?? [];
  const lines: string[] = [];
  if (s.what_changed) {
    const w = s.what_changed;
    lines.push(`what changed since ${w.previous_id}: sources ${w.new_sources} new, ${w.changed_sources} changed, ${w.gone_sources} gone; findings ${w.new_findings} new, ${w.changed_findings} changed, ${w.gone_findings} gone`);
  }
  if (!log.length) return lines;
  // Each target's latest outcome counts: a re-send replaces the failure it sent again.
  const latest = [...new Map(log.map((r) => [`${r.event} ${r.channel} ${r.target}`, r])).values()];
  const sent = latest.filter((r) => r.ok).length;
  const resent = log.filter((r) => r.resent).length;
  lines.push(`delivery: ${sent} sent, ${latest.length - sent} failed${resent ? ` (${resent} sent again)` : ''}`);
  for (const r of log) lines.push(`  ${r.at} ${r.event} ${r.channel} ${r.target}: ${r.resent ? 'again: ' : ''}${r.ok ? `sent (${r.response ?? 'ok'}, attempt ${r.attempts})` : `FAILED: ${r.error}`}`);
  if (latest.some((r) => !r.ok) && TERMINAL_STATUSES.includes(s.status)) lines.push(`  send it again: deep-research deliver ${s.research_id}`);
  return lines;
}

/** Old camelCase names in --json answers and the snake_case name that replaces each (kept as aliases for one release). */
const RENAMED: Record<string, string> = { researchId: 'research_id', parentId: 'parent_id', workflowId: 'workflow_id' };

/**
 * A --json answer with `research_id` (and `parent_id`, `workflow_id`) as every other answer names
 * them; the camelCase names stay beside them for one release (deprecated).
 */
export function withSnakeCaseIds(value: unknown): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  const entries = Object.entries(value as Record<string, unknown>);
  if (!entries.some(([key]) => key in RENAMED)) return value;
  const renamed = entries.flatMap(([key, v]): [string, unknown][] => (key in RENAMED ? [[RENAMED[key], v]] : [[key, v]]));
  const aliases = entries.filter(([key]) => key in RENAMED);
  return Object.fromEntries([...renamed, ...aliases]);
}

const utc = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

/** Seed 001's content archive: which full texts this session archived, and when they expire (then the worker deletes them). */
export function archiveLines(s: ResearchSnapshot, now: number): string[] {
  const a = s.content_archive;
  if (!a) return [];
  const ids = a.source_ids.length > 8 ? `${a.source_ids.slice(0, 8).join(', ')}, …` : a.source_ids.join(', ');
  const what = `content archive: full text of ${a.source_ids.length} source${a.source_ids.length === 1 ? '' : 's'} (${ids})`;
  if (Date.parse(a.last_expires_at) <= now) return [`${what}: expired ${utc(a.last_expires_at)} (deleted)`];
  const until = a.expires_at === a.last_expires_at ? `kept until ${utc(a.expires_at)}` : `kept until ${utc(a.expires_at)} (the last until ${utc(a.last_expires_at)})`;
  return [`${what}, ${until}${Date.parse(a.expires_at) <= now ? '; the first have expired' : ''}, then deleted`];
}

/** The planner's questions while the session waits for their answers, and how to answer. */
function clarificationLines(s: ResearchSnapshot): string[] {
  const questions = s.status === 'awaiting_clarification' ? (s.plan?.clarifying_questions ?? []) : [];
  if (!questions.length) return [];
  return [`clarifying questions (answer: deep-research answer ${s.research_id} "…" "…", blank to skip one):`, ...questions.map((q, i) => `  ${i + 1}. ${q}`)];
}
