// Steering a running session (guide, continue, top-up, cancel), reviewing the finished report, and
// exports: Markdown, HTML and JSON from the API, PDF from the browser's print dialog.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api, download } from './api';
import { Alert, busyRun } from './ui';
import { waitsForAnswer } from '../domain/messages';

/** Guidance, continue, top-up and cancel, each shown while the session accepts it (`accepts`, from the snapshot). */
export function Steering({ id, status, accepts, onDone }: { id: string; status: string; accepts: string[]; onDone: () => void }) {
  const [guide, setGuide] = useState('');
  const [topUp, setTopUp] = useState({ cost_usd: '', tokens: '', searches: '', fetches: '' });
  const [busy, setBusy] = useState('');
  const [error, setError] = useState<unknown>();
  // A session waiting for a person's answer to its plan or report is steered by that answer's own form.
  if (!accepts.includes('cancel') || waitsForAnswer(accepts)) return null;
  const run = (name: string, action: () => Promise<unknown>) => busyRun(setBusy, setError, name, async () => (await action(), onDone()));
  const amounts = Object.fromEntries(Object.entries(topUp).filter(([, v]) => v.trim() !== '').map(([k, v]) => [k, Number(v)]));
  return html`<section class="panel steering" aria-labelledby="steer-title">
    <h2 id="steer-title">Steer</h2>
    ${status === 'awaiting_budget' && html`<p class="alert" role="alert">The budget is spent: top it up to continue, or cancel.</p>`}
    ${status === 'awaiting_guidance' && html`<p class="hint">Paused between phases: send guidance, or continue without.</p>`}
    ${accepts.includes('guidance') && html`<form class="field" onSubmit=${(e: Event) => (e.preventDefault(), run('guide', async () => (await api('POST', `/api/research/${id}/guide`, { text: guide }), setGuide(''))))}>
      <label for="guide-text">Guidance for the next phase</label>
      <textarea id="guide-text" rows="1" value=${guide} onInput=${(e: Event) => setGuide((e.target as HTMLTextAreaElement).value)}></textarea>
      <div class="actions">
        <button type="submit" disabled=${busy !== '' || !guide.trim()}>Send guidance</button>
        ${accepts.includes('continue') && html`<button type="button" disabled=${busy !== ''} onClick=${() => run('continue', () => api('POST', `/api/research/${id}/continue`))}>Continue</button>`}
      </div>
    </form>`}
    <details class="top-up" open=${status === 'awaiting_budget'}>
    <summary>Top up the budget</summary>
    <form onSubmit=${(e: Event) => (e.preventDefault(), run('top-up', () => api('POST', `/api/research/${id}/top-up`, amounts)))}>
      <fieldset>
        <legend class="sr-only">Amounts to add</legend>
        ${(['cost_usd', 'tokens', 'searches', 'fetches'] as const).map((k) => html`<div class="field" key=${k}>
          <label for=${`topup-${k}`}>${k === 'cost_usd' ? 'Cost (USD)' : k[0].toUpperCase() + k.slice(1)}</label>
          <input id=${`topup-${k}`} type="number" min="0" step=${k === 'cost_usd' ? '0.01' : '1'} value=${topUp[k]} onInput=${(e: Event) => setTopUp({ ...topUp, [k]: (e.target as HTMLInputElement).value })} />
        </div>`)}
        <button type="submit" disabled=${busy !== '' || Object.keys(amounts).length === 0}>Top up</button>
      </fieldset>
    </form>
    </details>
    <${Alert} error=${error} />
    <button type="button" class="danger" disabled=${busy !== ''} onClick=${() => confirm('Cancel this research? What is done is kept.') && run('cancel', () => api('POST', `/api/research/${id}/cancel`, {}))}>Cancel research</button>
  </section>`;
}

export function Review({ id, onDone }: { id: string; onDone: () => void }) {
  const [feedback, setFeedback] = useState('');
  const [busy, setBusy] = useState('');
  const [error, setError] = useState<unknown>();
  const run = (action: 'accept' | 'reject' | 'feedback') =>
    busyRun(setBusy, setError, action, async () => (await api('POST', `/api/research/${id}/review`, action === 'feedback' ? { action, feedback } : { action }), onDone()));
  return html`<section class="panel review" aria-labelledby="review-title">
    <h2 id="review-title">Review the report</h2>
    <div class="actions">
      <button type="button" class="primary" disabled=${busy !== ''} onClick=${() => run('accept')}>Accept</button>
      <button type="button" class="danger" disabled=${busy !== ''} onClick=${() => run('reject')}>Reject</button>
    </div>
    <div class="field">
      <label for="review-feedback">Feedback for another round</label>
      <textarea id="review-feedback" rows="2" value=${feedback} onInput=${(e: Event) => setFeedback((e.target as HTMLTextAreaElement).value)}></textarea>
      <button type="button" disabled=${busy !== '' || !feedback.trim()} onClick=${() => run('feedback')}>Send feedback</button>
    </div>
    <${Alert} error=${error} />
  </section>`;
}

export function Exports({ id }: { id: string }) {
  const [error, setError] = useState<unknown>();
  const get = (format: string, ext: string) => download(`/api/research/${id}/report?format=${format}`, `research-${id}.${ext}`).catch(setError);
  return html`<div class="exports" role="group" aria-label="Export the report">
    <span>Export:</span>
    <button type="button" onClick=${() => get('md', 'md')}>Markdown</button>
    <button type="button" onClick=${() => get('html', 'html')}>HTML</button>
    <button type="button" onClick=${() => get('json', 'json')}>JSON</button>
    <button type="button" onClick=${() => print()}>PDF (print)</button>
    <${Alert} error=${error} />
  </div>`;
}

/** A session started without its question (awaiting_topic), or a panel with failed models (awaiting_confirmation). */
export function Waiting({ id, accepts, onDone }: { id: string; accepts: string[]; onDone: () => void }) {
  const [topic, setTopic] = useState('');
  const [busy, setBusy] = useState('');
  const [error, setError] = useState<unknown>();
  const run = (name: string, action: () => Promise<unknown>) => busyRun(setBusy, setError, name, async () => (await action(), onDone()));
  if (accepts.includes('provideTopic')) {
    return html`<section class="panel" aria-labelledby="topic-title">
      <h2 id="topic-title">What should be researched?</h2>
      <form class="field" onSubmit=${(e: Event) => (e.preventDefault(), run('topic', () => api('POST', `/api/research/${id}/topic`, { query: topic })))}>
        <label for="topic">Research question</label>
        <textarea id="topic" rows="2" value=${topic} onInput=${(e: Event) => setTopic((e.target as HTMLTextAreaElement).value)}></textarea>
        <button type="submit" class="primary" disabled=${busy !== '' || !topic.trim()}>Send</button>
      </form>
      <${Alert} error=${error} />
    </section>`;
  }
  if (!accepts.includes('confirm')) return null;
  return html`<section class="panel" aria-labelledby="confirm-title">
    <h2 id="confirm-title">Some panel models failed</h2>
    <div class="actions">
      ${(['proceed', 'retry', 'cancel'] as const).map((action) => html`<button type="button" class=${action === 'cancel' ? 'danger' : ''} disabled=${busy !== ''} onClick=${() => run(action, () => api('POST', `/api/research/${id}/confirm`, { action }))}>${action === 'proceed' ? 'Proceed with the answers there are' : action === 'retry' ? 'Retry the failed models' : 'Cancel'}</button>`)}
    </div>
    <${Alert} error=${error} />
  </section>`;
}
