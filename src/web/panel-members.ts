// A panel session's members as the worker settled them: how each answer went (a failed one with its
// error) and which models were left out, and why (one per vendor, no key, at most five).
import { html } from 'htm/preact';
import { panelSummary } from '../domain/panel';
import type { Snapshot } from './panels';

export function PanelMembers({ state }: { state: Snapshot }) {
  const summary = panelSummary(state);
  if (!summary) return null;
  return html`<div class="panel-members">
    <p>Panel: ${summary.members.length ? summary.members.map((m, i) => html`${i > 0 ? ', ' : ''}<span class=${`member member-${m.status}`}>${m.model}${m.error ? ` (failed: ${m.error})` : m.status === 'pending' ? '' : ` (${m.status})`}</span>`) : 'no model yet — choose one when approving'}</p>
    ${summary.left_out.length > 0 && html`<ul class="left-out" aria-label="Left out of the panel">${summary.left_out.map((d) => html`<li key=${d.model}>Left out of the panel: <strong>${d.model}</strong> — ${d.reason}</li>`)}</ul>`}
  </div>`;
}
