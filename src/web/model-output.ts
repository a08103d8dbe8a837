// What the model is writing: the live model_output events of the session's stream, newest call
// last, each call's text cut to its newest characters so the view stays small however long the run.
import { html } from 'htm/preact';
import type { ModelOutput } from '../domain/types';

export interface LiveCall {
  key: string;
  role: string;
  text: string;
  chars: number;
  done: boolean;
}

/** Characters kept per model call, and calls kept: older ones drop out. */
const KEPT_CHARS = 3_000;
const KEPT_CALLS = 4;

export function withOutput(calls: LiveCall[], e: ModelOutput): LiveCall[] {
  const key = `${e.call_id}#${e.attempt}`;
  const old = calls.find((c) => c.key === key);
  const gap = e.skipped_chars ? '… ' : '';
  const text = `${old?.text ?? ''}${gap}${e.delta}`.slice(-KEPT_CHARS);
  const call: LiveCall = { key, role: e.role, text, chars: Math.max(old?.chars ?? 0, e.chars_so_far), done: !!e.done || !!old?.done };
  return [...calls.filter((c) => c.key !== key), call].slice(-KEPT_CALLS);
}

export function ModelOutputView({ calls }: { calls: LiveCall[] }) {
  if (!calls.length) return html`<p class="hint">Nothing yet: the model's text appears here while it writes.</p>`;
  return html`<ol class="model-output" tabindex="0" aria-label="What the model is writing">${calls.map(
    (c) => html`<li key=${c.key}>
      <p class="hint">${c.role} · ${c.chars.toLocaleString()} characters${c.done ? ' · done' : ' · writing…'}</p>
      <pre>${c.text}</pre>
    </li>`,
  )}</ol>`;
}
