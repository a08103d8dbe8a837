// What a session holds, panel by panel: sources (tier, relevance, fetch time, a preview of the
// stored text), findings with confidence, gaps, the decision log, budgets and cost, and events.
// Every text here came from a model or a web page: it is rendered as text, never as HTML.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api, type StreamEvent } from './api';
import { scopeStart } from '../domain/filters';
import { Alert, num, usd, when } from './ui';

export type Snapshot = Record<string, any>;

const PHASE_SHARE: Record<string, number> = { searching: 0.2, fetching: 0.45, analyzing: 0.7, updating_report: 0.9 };

const STOPPED: Record<string, string> = { cancelled: 'cancelled', failed: 'failed', expired: 'expired', timed_out: 'timed out' };

/** For a session that ended before its answer: how far it got (a progress bar would say "done"). */
export function stoppedSummary(s: Snapshot): string | undefined {
  if (s.status === 'rejected') return 'Plan rejected: no research ran.';
  const how = STOPPED[s.status];
  if (!how) return undefined;
  const read = (s.sources ?? []).filter((x: Snapshot) => x.status === 'fetched').length;
  if (!read) return `Stopped (${how}) before any source was read.`;
  const findings = (s.findings ?? []).length;
  return `Stopped (${how}) in iteration ${s.iteration} of ${s.settings?.max_iterations}: ${read} of ${s.sources.length} sources read, ${findings} finding${findings === 1 ? '' : 's'}.`;
}

/** 0..100: planning is the first tenth, research the next eight, verification the rest. */
export function progressOf(s: Snapshot): number {
  if (s.status === 'completed') return 100;
  if (['planning', 'awaiting_clarification', 'awaiting_approval'].includes(s.status)) return s.status === 'planning' ? 3 : 8;
  if (s.status === 'verifying' || s.phase === 'verifying') return 92;
  if (s.status === 'awaiting_review') return 97;
  const total = Math.max(1, s.settings?.max_iterations ?? 1);
  const done = Math.max(0, (s.iteration ?? 1) - 1) + (PHASE_SHARE[s.phase] ?? 0.1);
  return Math.round(10 + 80 * Math.min(1, done / total));
}

const safeHref = (url: string) => (/^https?:\/\//i.test(url) ? url : undefined);

function SourcePreview({ id, sourceId }: { id: string; sourceId: string }) {
  const [preview, setPreview] = useState<{ text: string; truncated: boolean; chars: number; content_type: string | null } | undefined>();
  const [error, setError] = useState<unknown>();
  const [open, setOpen] = useState(false);
  const toggle = async () => {
    setOpen(!open);
    if (preview || open) return;
    try {
      setPreview(await api('GET', `/api/research/${id}/sources/${sourceId}/text`));
    } catch (err) {
      setError(err);
    }
  };
  return html`<div class="preview">
    <button type="button" aria-expanded=${open} aria-controls=${`preview-${sourceId}`} onClick=${toggle}>Preview ${sourceId}</button>
    <div id=${`preview-${sourceId}`} hidden=${!open}>
      <${Alert} error=${error} />
      ${open && !preview && !error && html`<p role="status">Loading…</p>`}
      ${preview && html`<p class="hint">${preview.content_type ?? 'text'} · ${num(preview.chars)} characters stored${preview.truncated ? ' (first 20,000 shown)' : ''}</p>
        <pre class="source-text" tabindex="0" aria-label=${`Stored text of ${sourceId}`}>${preview.text || '(no text was stored for this source)'}</pre>`}
    </div>
  </div>`;
}

/** When a source says it was written (never the fetch time), and whether it is older than the period the question asks about. */
export function dated(s: Snapshot, scope: { text: string; start: string } | undefined): string {
  const published = typeof s.published === 'string' ? s.published.slice(0, 10) : undefined;
  const updated = typeof s.updated === 'string' ? s.updated.slice(0, 10) : undefined;
  if (!published && !updated) return s.status === 'fetched' ? 'undated' : '';
  const stale = scope && published && published < scope.start ? ` — older than the period asked (${scope.text})` : '';
  return [published && `published ${published}`, updated && `updated ${updated}`].filter(Boolean).join(', ') + stale;
}

export function Sources({ id, state }: { id: string; state: Snapshot }) {
  const sources = (state.sources ?? []) as Snapshot[];
  const asked = ((state.plan as Snapshot | undefined)?.context as Snapshot | undefined)?.time_scope;
  const start = typeof asked === 'string' ? scopeStart(asked, Date.parse(String(state.created_at ?? ''))) : undefined;
  const scope = start && typeof asked === 'string' ? { text: asked, start } : undefined;
  return html`<ul class="sources">
    ${sources.map((s) => html`<li key=${s.id} class="source" id=${`source-${s.id}`}>
      <div><strong>[${s.id}]</strong> ${safeHref(s.url) ? html`<a href=${safeHref(s.url)} rel="noopener noreferrer nofollow" target="_blank">${s.title || s.url}</a>` : html`<span>${s.title || s.url}</span>`}</div>
      <div class="meta">
        <span class=${`badge tier-${s.tier ?? 'unknown'}`}>${s.tier ?? 'unrated'}</span>
        <span>credibility ${s.credibility === undefined ? '—' : num(s.credibility, 2)}</span>
        ${dated(s, scope) && html`<span class="dated">${dated(s, scope)}</span>`}
        <span>relevance ${s.relevance === undefined ? '—' : num(s.relevance, 2)}${s.skipped_off_topic ? ' (skipped: off topic)' : ''}${s.off_question ? ' (read: does not address the question, not cited)' : ''}</span>
        <span>${s.status}${s.retrieved_at ? ` ${when(s.retrieved_at)}` : ''}</span>
      </div>
      ${s.status === 'fetched' && s.text_file_id && html`<${SourcePreview} id=${id} sourceId=${s.id} />`}
    </li>`)}
  </ul>
  ${sources.length === 0 && html`<p>No sources yet.</p>`}`;
}

export function Findings({ state }: { state: Snapshot }) {
  const findings = (state.findings ?? []) as Snapshot[];
  if (!findings.length) return html`<p>No findings yet.</p>`;
  return html`<ul class="findings">${findings.map((f) => html`<li key=${f.id}>
    <span class=${`badge confidence-${f.confidence}`}>${f.confidence}</span> ${f.content}
    <span class="meta"> ${(f.source_ids as string[]).map((sid) => html`<a href=${`#source-${sid}`} onClick=${(e: Event) => (e.preventDefault(), document.getElementById(`source-${sid}`)?.scrollIntoView())}>[${sid}]</a> `)}</span>
  </li>`)}</ul>`;
}

export function Gaps({ state }: { state: Snapshot }) {
  const gaps = (state.gaps ?? []) as Snapshot[];
  if (!gaps.length) return html`<p>No gaps found.</p>`;
  return html`<ul class="gaps">${gaps.map((g, i) => html`<li key=${i}>${g.addressed ? '✓ ' : ''}${g.description}<span class="meta"> · priority ${g.priority}${g.addressed ? ' · addressed' : ''}</span></li>`)}</ul>`;
}

export function Decisions({ state }: { state: Snapshot }) {
  const decisions = (state.mind?.agent_decisions ?? []) as Snapshot[];
  if (!decisions.length) return html`<p>No decisions logged yet.</p>`;
  return html`<ol class="decisions">${decisions.slice(-50).map((d, i) => html`<li key=${i}>
    <span class="meta">${when(d.timestamp)} · ${d.agent}</span> <strong>${d.action}</strong> — ${d.rationale}
  </li>`)}</ol>`;
}

function BudgetRow({ label, used, limit, format }: { label: string; used: number; limit?: number; format: (n: number) => string }) {
  return html`<tr>
    <th scope="row">${label}</th>
    <td>${format(used)}</td>
    <td>${limit ? format(limit) : 'no limit'}</td>
    <td>${limit ? html`<progress max=${limit} value=${Math.min(used, limit)} aria-label=${`${label} used`}></progress>` : ''}</td>
  </tr>`;
}

export function Budget({ state }: { state: Snapshot }) {
  const usage = state.usage ?? {};
  const roles = Object.values(usage.tokens_by_role ?? {}) as Snapshot[];
  const tokens = roles.reduce((n, r) => n + (r.input_tokens ?? 0) + (r.output_tokens ?? 0), 0);
  const base = state.settings?.budget ?? {};
  const extra = state.mind?.budget_topups ?? {};
  const limit = (k: string) => (base[k] === undefined && extra[k] === undefined ? undefined : (base[k] ?? 0) + (extra[k] ?? 0));
  const wall = state.mind?.started_ms ? Math.round((Date.parse(state.updated_at) - state.mind.started_ms) / 1000) : 0;
  return html`<table class="budget">
    <caption>Spent so far (limits include top-ups)</caption>
    <thead><tr><th scope="col">Budget</th><th scope="col">Used</th><th scope="col">Limit</th><th scope="col">Share</th></tr></thead>
    <tbody>
      <${BudgetRow} label="Cost" used=${usage.cost_usd ?? 0} limit=${limit('cost_usd')} format=${usd} />
      <${BudgetRow} label="Tokens" used=${tokens} limit=${limit('tokens')} format=${(n: number) => num(n)} />
      <${BudgetRow} label="Searches" used=${usage.search_calls ?? 0} limit=${limit('searches')} format=${(n: number) => num(n)} />
      <${BudgetRow} label="Fetches" used=${usage.fetch_calls ?? 0} limit=${limit('fetches')} format=${(n: number) => num(n)} />
      <${BudgetRow} label="Seconds" used=${Math.max(0, wall)} limit=${limit('wall_seconds')} format=${(n: number) => num(n)} />
    </tbody>
  </table>
  <p class="meta">${num(usage.model_calls ?? 0)} model calls</p>
  ${archiveNote(state)}`;
}

/** Seed 001's content archive: the full texts this session archived, and when they expire. */
function archiveNote(state: Snapshot) {
  const a = state.content_archive;
  if (!a?.source_ids?.length) return '';
  const expired = Date.parse(a.last_expires_at) <= Date.now();
  const until = expired ? `expired ${when(a.last_expires_at)} (deleted)` : `kept until ${when(a.expires_at)}${a.last_expires_at !== a.expires_at ? ` (the last until ${when(a.last_expires_at)})` : ''}, then deleted`;
  return html`<p class="meta archive">Content archive: full text of ${num(a.source_ids.length)} source(s) (${a.source_ids.join(', ')}), ${until}.</p>`;
}

const eventText = (e: StreamEvent): string => {
  const d = e.data ?? {};
  const text = d.message ?? d.status ?? d.tool ?? d.agent ?? d.name ?? '';
  return typeof text === 'string' ? text : JSON.stringify(text);
};

export function Events({ events }: { events: StreamEvent[] }) {
  if (!events.length) return html`<p>No events yet.</p>`;
  return html`<ol class="events">${events.slice(-200).map((e) => html`<li key=${e.seq} data-seq=${e.seq}><span class="meta">#${e.seq} ${when(e.time)}</span> <strong>${e.type}</strong> ${eventText(e).slice(0, 300)}</li>`)}</ol>`;
}
