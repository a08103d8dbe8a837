// One session, live: status, phase and progress, the plan checkpoint, steering, the report as it is
// patched (with its warnings beside the text), sources, findings, gaps, decisions, budget, events.
// Follows the event stream and re-reads the session as events arrive; resumes after a drop.
import { html } from 'htm/preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { api, followEvents, type StreamEvent } from './api';
import { Exports, Review, Steering, Waiting } from './controls';
import { annotate, renderMarkdown, warningLabel, type ReportWarning } from './markdown';
import { Budget, Decisions, Events, Findings, Gaps, progressOf, Sources, stoppedSummary, type Snapshot } from './panels';
import { PanelMembers } from './panel-members';
import { Clarify, PlanReview } from './plan-review';
import { ShareControl } from './share';
import { ModelOutputView, withOutput, type LiveCall } from './model-output';
import { NEXT_RUN, type SessionRow } from './session-list';
import { Alert, busyRun, navigate, stageOf, StatusBadge } from './ui';

export function warningsOf(state: Snapshot): ReportWarning[] {
  const mind = state.mind ?? {};
  return [
    ...((mind.unsupported_claims ?? []) as { sentence: string; source_ids: string[] }[]).map((c) => ({
      kind: 'unsupported' as const, sentence: c.sentence, message: `${c.source_ids.join(', ') || 'the cited source'} does not say this`,
    })),
    ...((state.citation_removals ?? []) as { citation: string; claim: string; reason: string }[]).map((r) => ({
      kind: 'removed-citation' as const, sentence: r.claim, message: `${r.citation} removed: ${r.reason}`,
    })),
    ...((mind.link_checks ?? []) as { url: string; ok: boolean; status?: number; error?: string }[]).filter((l) => !l.ok).map((l) => ({
      kind: 'dead-link' as const, href: l.url, message: `${l.url} answered ${l.status ?? l.error ?? 'nothing'}`,
    })),
    ...((state.citation_warnings ?? []) as string[]).map((w) => ({ kind: 'citation' as const, message: w })),
  ];
}

function Report({ markdown, warnings }: { markdown: string; warnings: ReportWarning[] }) {
  const ref = useRef<HTMLDivElement>(null);
  const [unplaced, setUnplaced] = useState<ReportWarning[]>([]);
  useLayoutEffect(() => {
    if (!ref.current) return;
    ref.current.innerHTML = renderMarkdown(markdown || '');
    setUnplaced(annotate(ref.current, warnings));
  }, [markdown, JSON.stringify(warnings)]);
  return html`<div>
    <div ref=${ref} class="report-body"></div>
    ${!markdown && html`<p class="hint">The report appears here as it is written.</p>`}
    ${unplaced.length > 0 && html`<div class="panel warnings"><h3>Other warnings</h3><ul>${unplaced.map((w, i) => html`<li key=${i}><strong>${warningLabel(w.kind)}:</strong> ${w.message}</li>`)}</ul></div>`}
  </div>`;
}

function Section({ title, count, open = false, children }: { title: string; count?: number; open?: boolean; children: unknown }) {
  return html`<details class="panel" open=${open}><summary><h2>${title}${count !== undefined ? ` (${count})` : ''}</h2></summary>${children}</details>`;
}

/**
 * Resume, with the time limit the session runs on from now: its old one unless changed (a session
 * that timed out would otherwise stop again at the same limit). Keyed by that limit, so a limit
 * read after the first render fills the field.
 */
function ResumeControl({ id, limitSeconds, busy, act, onDone }: { id: string; limitSeconds?: number; busy: boolean; act: (name: string, action: () => Promise<unknown>) => void; onDone: () => void }) {
  const [minutes, setMinutes] = useState(limitSeconds ? String(Math.round(limitSeconds / 60)) : '');
  const resume = () =>
    act('next', async () => {
      const chosen = Number(minutes);
      const body = Number.isFinite(chosen) && chosen > 0 && Math.round(chosen * 60) !== limitSeconds ? { timeout_seconds: Math.round(chosen * 60) } : undefined;
      await api('POST', `/api/research/${id}/resume`, body);
      onDone();
    });
  return html`<span class="inline-field">
    <label for="resume-minutes">Time limit (minutes)</label>
    <input id="resume-minutes" type="number" min="1" step="1" value=${minutes} onInput=${(e: Event) => setMinutes((e.target as HTMLInputElement).value)} />
    <button type="button" disabled=${busy} onClick=${resume}>Resume</button>
  </span>`;
}

export function SessionView({ id }: { id: string }) {
  const [research, setResearch] = useState<SessionRow & { settings?: Record<string, unknown>; contexts?: number } | undefined>();
  const [state, setState] = useState<Snapshot | null>(null);
  const [events, setEvents] = useState<StreamEvent[]>([]);
  const [output, setOutput] = useState<LiveCall[]>([]);
  const [connection, setConnection] = useState('connecting');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState('');
  const [streamKey, setStreamKey] = useState(0);
  const timer = useRef<number | undefined>();

  const load = async () => {
    try {
      const got = await api<{ research: SessionRow; state: Snapshot | null }>('GET', `/api/research/${id}`);
      setResearch(got.research);
      setState(got.state);
      setError(undefined);
    } catch (err) {
      setError(err);
    }
  };
  const soon = () => {
    if (timer.current !== undefined) return;
    timer.current = window.setTimeout(() => {
      timer.current = undefined;
      void load();
    }, 300);
  };

  useEffect(() => {
    void load();
    const stop = followEvents(id, {
      onEvent: (e) => {
        setEvents((old) => (old.length && old[old.length - 1].seq >= e.seq ? old : [...old, e]));
        soon();
      },
      onModelOutput: (o) => setOutput((old) => withOutput(old, o)),
      onEnd: () => void load(),
      onConnection: setConnection,
    });
    return () => {
      stop();
      window.clearTimeout(timer.current);
    };
  }, [id, streamKey]);

  // Steering restarts a finished stream (a retried or resumed session runs again).
  const afterAction = () => {
    void load();
    if (connection === 'ended') setStreamKey((k) => k + 1);
  };
  const act = (name: string, action: () => Promise<unknown>) => busyRun(setBusy, setError, name, action);

  useEffect(() => {
    if (research) document.title = `${research.query.split('\n')[0].slice(0, 80)} — deep-research`;
    return () => void (document.title = 'deep-research');
  }, [research?.query]);

  if (!research) return html`<section><${Alert} error=${error} />${!error && html`<p role="status">Loading…</p>`}</section>`;
  const stage = stageOf(state?.status ?? research.status, state?.phase);
  const status = stage.status;
  const title = research.query.split('\n')[0];
  const next = NEXT_RUN[status];
  const stopped = state && stoppedSummary(state);
  const progress = state && progressOf(state);
  const limit = state?.settings?.timeout_seconds ?? research.settings?.timeout_seconds;
  // A session that waits for the user puts the controls first; otherwise the report comes first.
  // What the session accepts now, as the engine says (the snapshot's `accepts`): the forms shown follow it.
  const accepts: string[] = state?.accepts ?? [];
  const waiting = status === 'awaiting_budget' || status === 'awaiting_guidance';

  return html`<article class="session">
    <header class="session-head">
      <h1>${title}</h1>
      <div class="meta">
        <${StatusBadge} status=${status} />
        ${stage.phase && html`<span>phase: ${stage.phase}</span>`}
        ${state && html`<span>iteration ${state.iteration} of ${state.settings?.max_iterations}</span>`}
        <span class=${`connection connection-${connection}`} role="status">${connection === 'reconnecting' ? 'connection lost, reconnecting…' : connection === 'live' ? 'live' : connection === 'ended' ? 'stream ended' : 'connecting…'}</span>
      </div>
      ${state && (stopped ? html`<p class="stopped">${stopped}</p>` : html`<div class="progress"><label for="progress">Progress</label><progress id="progress" max="100" value=${progress}>${progress}%</progress><span>${progress}%</span></div>`)}
      <div class="session-actions no-print">
        <button type="button" aria-pressed=${research.favourite} onClick=${() => act('fav', async () => setResearch(await api('PUT', `/api/research/${id}/favourite`, { favourite: !research.favourite })))}><span aria-hidden="true">${research.favourite ? '★' : '☆'}</span> Favourite</button>
        ${status !== 'draft' && html`<${ShareControl} session=${research} onChange=${(r: SessionRow) => setResearch({ ...research, ...r })} />`}
        ${next && next.path !== 'resume' && html`<button type="button" disabled=${busy !== ''} onClick=${() => act('next', async () => {
          const res = await api<{ research_id?: string }>('POST', `/api/research/${id}/${next.path}`, next.path === 'enhance' ? {} : undefined);
          if (res.research_id && res.research_id !== id) navigate(`#/r/${res.research_id}`);
          else afterAction();
        })}>${next.label}</button>`}
        ${next?.path === 'resume' && html`<${ResumeControl} key=${String(limit)} id=${id} limitSeconds=${Number(limit) || undefined} busy=${busy !== ''} act=${act} onDone=${afterAction} />`}
        <button type="button" class="danger" disabled=${busy !== ''} onClick=${() => confirm('Delete this research? Its report, sources and events are removed.') && act('delete', async () => (await api('DELETE', `/api/research/${id}`), navigate('#/')))}>Delete</button>
      </div>
      <${Alert} error=${error} />
      ${state?.reason && html`<p class="hint reason">Reason: ${state.reason}</p>`}
      ${state && html`<${PanelMembers} state=${state} />`}
    </header>

    ${status === 'draft' && html`<section class="panel">
      <h2>Draft</h2>
      <p>Nothing runs until you start it.${research.contexts ? ` ${research.contexts} input context(s) attached, read as sources once it starts.` : ''}</p>
      <pre class="settings-json">${JSON.stringify(research.settings ?? {}, null, 2)}</pre>
      <button type="button" class="primary" disabled=${busy !== ''} onClick=${() => act('start', async () => (await api('POST', `/api/research/${id}/approve`), setStreamKey((k) => k + 1), await load()))}>Start research</button>
    </section>`}
    ${accepts.includes('answerClarifications') && state?.plan && html`<${Clarify} id=${id} questions=${state.plan.clarifying_questions} onDone=${afterAction} />`}
    ${accepts.includes('approve') && state?.plan && html`<${PlanReview} key=${state.plan_revisions} id=${id} plan=${state.plan} onDone=${afterAction} />`}
    ${accepts.includes('reviewReport') && html`<${Review} id=${id} onDone=${afterAction} />`}
    <${Waiting} id=${id} accepts=${accepts} onDone=${afterAction} />
    ${waiting && html`<${Steering} id=${id} status=${status} accepts=${accepts} onDone=${afterAction} />`}

    ${state && html`<section class="report" aria-labelledby="report-title">
      <div class="title-row no-print"><h2 id="report-title">Report</h2><${Exports} id=${id} /></div>
      <${Report} markdown=${state.report_markdown} warnings=${warningsOf(state)} />
    </section>
    ${!waiting && html`<${Steering} id=${id} status=${status} accepts=${accepts} onDone=${afterAction} />`}
    <div class="panels no-print">
      <${Section} title="Sources" count=${state.sources.length} open=${true}><${Sources} id=${id} state=${state} /><//>
      <${Section} title="Findings" count=${state.findings.length}><${Findings} state=${state} /><//>
      <${Section} title="Gaps" count=${state.gaps.length}><${Gaps} state=${state} /><//>
      <${Section} title="Budget and cost" open=${true}><${Budget} state=${state} /><//>
      <${Section} title="Decision log" count=${state.mind?.agent_decisions?.length ?? 0}><${Decisions} state=${state} /><//>
      <${Section} title="Events" count=${events.length}><${Events} events=${events} /><//>
      <${Section} title="What the model is writing" open=${connection === 'live'}><${ModelOutputView} calls=${output} /><//>
    </div>`}
  </article>`;
}
