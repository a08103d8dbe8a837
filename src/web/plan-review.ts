// The human checkpoint: clarifying questions answered in place, then the plan (sub-questions,
// outline, brief) edited and approved, rejected, or sent back for a revision with feedback.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api } from './api';
import { Alert, busyRun } from './ui';

interface Plan {
  clarifying_questions: string[];
  expanded_queries: { query: string; rationale: string; priority: number }[];
  outline: string[];
  research_brief: string;
  assumptions: string[];
}

export function Clarify({ id, questions, onDone }: { id: string; questions: string[]; onDone: () => void }) {
  const [answers, setAnswers] = useState<string[]>(questions.map(() => ''));
  const [busy, setBusy] = useState('');
  const [error, setError] = useState<unknown>();
  return html`<section class="panel clarify" aria-labelledby="clarify-title">
    <h2 id="clarify-title">The planner asks</h2>
    <form onSubmit=${(e: Event) => {
      e.preventDefault();
      busyRun(setBusy, setError, 'answer', async () => (await api('POST', `/api/research/${id}/answer`, { answers }), onDone()));
    }}>
      ${questions.map((q, i) => html`<div class="field" key=${i}>
        <label for=${`answer-${i}`}>${q}</label>
        <input id=${`answer-${i}`} class="answer" type="text" value=${answers[i]} onInput=${(e: Event) => setAnswers(answers.map((a, j) => (j === i ? (e.target as HTMLInputElement).value : a)))} />
      </div>`)}
      <p class="hint">Leave an answer empty to let the planner decide.</p>
      <${Alert} error=${error} />
      <button type="submit" class="primary" disabled=${busy !== ''}>Send answers</button>
    </form>
  </section>`;
}

function ListEditor({ label, name, items, onChange }: { label: string; name: string; items: string[]; onChange: (items: string[]) => void }) {
  return html`<fieldset class="list-editor">
    <legend>${label}</legend>
    <ol>
      ${items.map((item, i) => html`<li key=${i}>
        <label class="sr-only" for=${`${name}-${i}`}>${label} ${i + 1}</label>
        <input id=${`${name}-${i}`} class=${name} type="text" value=${item} onInput=${(e: Event) => onChange(items.map((x, j) => (j === i ? (e.target as HTMLInputElement).value : x)))} />
        <button type="button" class="link" onClick=${() => onChange(items.filter((_, j) => j !== i))}>Remove<span class="sr-only"> ${label} ${i + 1}</span></button>
      </li>`)}
    </ol>
    <button type="button" onClick=${() => onChange([...items, ''])}>Add</button>
  </fieldset>`;
}

export function PlanReview({ id, plan, onDone }: { id: string; plan: Plan; onDone: () => void }) {
  const [queries, setQueries] = useState(plan.expanded_queries.map((q) => q.query));
  const [outline, setOutline] = useState(plan.outline);
  const [brief, setBrief] = useState(plan.research_brief);
  const [feedback, setFeedback] = useState('');
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState('');
  const [error, setError] = useState<unknown>();
  const run = (name: string, action: () => Promise<unknown>) => busyRun(setBusy, setError, name, async () => (await action(), onDone()));

  const edited = () => {
    const kept = queries.map((q) => q.trim()).filter(Boolean);
    return {
      expanded_queries: kept.map((query, i) => {
        const before = plan.expanded_queries.find((q) => q.query === query);
        return { query, rationale: before?.rationale ?? 'Edited by the user.', priority: before?.priority ?? i + 1 };
      }),
      outline: outline.map((o) => o.trim()).filter(Boolean),
      research_brief: brief.trim() || plan.research_brief,
    };
  };

  return html`<section class="panel plan" aria-labelledby="plan-title">
    <h2 id="plan-title">Review the plan</h2>
    ${plan.assumptions.length > 0 && html`<p class="hint">Assumptions: ${plan.assumptions.join('; ')}</p>`}
    <${ListEditor} label="Sub-questions" name="sub-question" items=${queries} onChange=${setQueries} />
    <${ListEditor} label="Outline" name="outline-item" items=${outline} onChange=${setOutline} />
    <div class="field">
      <label for="brief">Research brief</label>
      <textarea id="brief" rows="3" value=${brief} onInput=${(e: Event) => setBrief((e.target as HTMLTextAreaElement).value)}></textarea>
    </div>
    <${Alert} error=${error} />
    <div class="actions">
      <button type="button" class="primary" disabled=${busy !== ''} onClick=${() => run('approve', () => api('POST', `/api/research/${id}/approve`, { plan: edited() }))}>Approve and start</button>
    </div>
    <div class="row">
      <form class="field" onSubmit=${(e: Event) => (e.preventDefault(), run('revise', () => api('POST', `/api/research/${id}/revise`, { feedback })))}>
        <label for="revise-feedback">Ask for a revision</label>
        <textarea id="revise-feedback" rows="2" value=${feedback} onInput=${(e: Event) => setFeedback((e.target as HTMLTextAreaElement).value)}></textarea>
        <button type="submit" disabled=${busy !== '' || !feedback.trim()}>Request revision</button>
      </form>
      <form class="field" onSubmit=${(e: Event) => (e.preventDefault(), run('reject', () => api('POST', `/api/research/${id}/reject`, reason.trim() ? { reason } : {})))}>
        <label for="reject-reason">Reject (reason, optional)</label>
        <textarea id="reject-reason" rows="2" value=${reason} onInput=${(e: Event) => setReason((e.target as HTMLTextAreaElement).value)}></textarea>
        <button type="submit" class="danger" disabled=${busy !== ''}>Reject plan</button>
      </form>
    </div>
  </section>`;
}
