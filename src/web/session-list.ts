// Your sessions: search, filter by status, favourites, and per session favourite, share (copy the
// link), retry / resume / enhance where they apply, and delete.
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, type Session } from './api';
import { ShareControl } from './share';
import { Alert, busyRun, navigate, STATUSES, StatusBadge, statusLabel, TERMINAL, when } from './ui';

export type SessionRow = Session;

export const NEXT_RUN: Record<string, { label: string; path: string }> = {
  failed: { label: 'Retry', path: 'retry' },
  cancelled: { label: 'Resume', path: 'resume' },
  timed_out: { label: 'Resume', path: 'resume' },
  completed: { label: 'Enhance', path: 'enhance' },
};

export function SessionList() {
  const [q, setQ] = useState('');
  const [status, setStatus] = useState('');
  const [favourites, setFavourites] = useState(false);
  const [rows, setRows] = useState<SessionRow[] | undefined>();
  const [cursor, setCursor] = useState<string | undefined>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState('');
  const deleted = useRef(new Set<string>());

  const load = async (more = false) => {
    const params = new URLSearchParams({ limit: '20' });
    if (q.trim()) params.set('q', q.trim());
    if (status) params.set('status', status);
    if (favourites) params.set('favourite', 'true');
    if (more && cursor) params.set('cursor', cursor);
    try {
      const page = await api<{ sessions: SessionRow[]; next_cursor?: string }>('GET', `/api/research?${params}`);
      const fresh = page.sessions.filter((r) => !deleted.current.has(r.research_id));
      setRows((old) => (more ? [...(old ?? []), ...fresh] : fresh));
      setCursor(page.next_cursor);
      setError(undefined);
    } catch (err) {
      setError(err);
    }
  };
  useEffect(() => {
    const timer = setTimeout(() => void load(), 200);
    return () => clearTimeout(timer);
  }, [q, status, favourites]);

  // Sessions still on the move are re-read every few seconds (one page only, so "Show more" stays put).
  useEffect(() => {
    if (cursor || !rows?.some((r) => r.status !== 'draft' && !TERMINAL.includes(r.status))) return;
    const timer = setTimeout(() => void load(), 4_000);
    return () => clearTimeout(timer);
  }, [rows]);

  const replace = (row: SessionRow) => setRows((old) => old?.map((r) => (r.research_id === row.research_id ? { ...r, ...row } : r)));
  const act = (name: string, action: () => Promise<unknown>) => busyRun(setBusy, setError, name, action);

  return html`<section class="sessions">
    <div class="title-row">
      <h1>Sessions</h1>
      <a class="button primary" href="#/new">New research</a>
    </div>
    <form class="filters" role="search" onSubmit=${(e: Event) => (e.preventDefault(), load())}>
      <div class="field">
        <label for="filter-q">Search questions</label>
        <input id="filter-q" type="search" value=${q} onInput=${(e: Event) => setQ((e.target as HTMLInputElement).value)} />
      </div>
      <div class="field">
        <label for="filter-status">Status</label>
        <select id="filter-status" value=${status} onChange=${(e: Event) => setStatus((e.target as HTMLSelectElement).value)}>
          <option value="">Any</option>
          ${STATUSES.map((s) => html`<option value=${s}>${statusLabel(s)}</option>`)}
        </select>
      </div>
      <div class="field check">
        <input id="filter-fav" type="checkbox" checked=${favourites} onChange=${(e: Event) => setFavourites((e.target as HTMLInputElement).checked)} />
        <label for="filter-fav">Favourites only</label>
      </div>
    </form>
    <${Alert} error=${error} />
    ${rows === undefined && !error && html`<p role="status">Loading…</p>`}
    ${rows?.length === 0 && html`<p>No sessions yet. <a href="#/new">Start a research</a>.</p>`}
    <ul class="session-rows">
      ${rows?.map((r) => html`<li key=${r.research_id} class="session-row">
        <div class="session-main">
          <a class="session-link" href=${`#/r/${r.research_id}`}>${r.query.split('\n')[0]}</a>
          <div class="meta"><${StatusBadge} status=${r.status} /> <span>${when(r.created_at)}</span>${r.parent_id && html` <span>version of ${r.parent_id}</span>`}</div>
        </div>
        <div class="session-actions">
          <button type="button" aria-pressed=${r.favourite} disabled=${busy !== ''} onClick=${() => act('fav', async () => replace(await api('PUT', `/api/research/${r.research_id}/favourite`, { favourite: !r.favourite })))}>
            <span aria-hidden="true">${r.favourite ? '★' : '☆'}</span> Favourite<span class="sr-only">: ${r.query.slice(0, 60)}</span>
          </button>
          ${r.status !== 'draft' && html`<${ShareControl} session=${r} onChange=${replace} />`}
          ${NEXT_RUN[r.status] && html`<button type="button" disabled=${busy !== ''} onClick=${() => act('run', async () => {
            const res = await api<{ research_id?: string }>('POST', `/api/research/${r.research_id}/${NEXT_RUN[r.status].path}`, NEXT_RUN[r.status].path === 'enhance' ? {} : undefined);
            navigate(`#/r/${res.research_id ?? r.research_id}`);
          })}>${NEXT_RUN[r.status].label}</button>`}
          <button type="button" class="danger" disabled=${busy !== ''} onClick=${() => {
            if (!confirm(`Delete “${r.query.slice(0, 80)}”? Its report, sources and events are removed.`)) return;
            act('delete', async () => {
              await api('DELETE', `/api/research/${r.research_id}`);
              deleted.current.add(r.research_id);
              setRows((old) => old?.filter((x) => x.research_id !== r.research_id));
            });
          }}>Delete<span class="sr-only">: ${r.query.slice(0, 60)}</span></button>
        </div>
      </li>`)}
    </ul>
    ${cursor && html`<button type="button" onClick=${() => load(true)}>Show more</button>`}
  </section>`;
}
