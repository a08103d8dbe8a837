// Small pieces the views share: navigation, messages, dates and numbers, status names.
import { html } from 'htm/preact';
import { ApiError } from './api';

export function navigate(hash: string): void {
  location.hash = hash;
}

export function errorText(err: unknown): string {
  if (err instanceof ApiError && err.status === 401) return `${err.message} — enter it under “API token” at the top.`;
  if (err instanceof ApiError) return err.message;
  return (err as Error)?.message ?? String(err);
}

export function Alert({ error }: { error?: unknown }) {
  if (!error) return null;
  return html`<p class="alert" role="alert">${errorText(error)}</p>`;
}

export const when = (iso?: string | null): string => (iso ? new Date(iso).toLocaleString() : '—');
export const num = (n: number | undefined, digits = 0): string => (n === undefined || Number.isNaN(n) ? '—' : n.toLocaleString(undefined, { maximumFractionDigits: digits }));
export const usd = (n: number | undefined): string => (n === undefined ? '—' : `$${n.toFixed(n < 1 ? 4 : 2)}`);

export const STATUSES = [
  'draft', 'awaiting_topic', 'planning', 'awaiting_clarification', 'awaiting_approval', 'running', 'processing', 'synthesizing',
  'awaiting_confirmation', 'awaiting_budget', 'awaiting_guidance', 'verifying', 'awaiting_review', 'completed', 'failed',
  'cancelled', 'rejected', 'expired', 'timed_out',
];
export const TERMINAL = ['completed', 'failed', 'cancelled', 'rejected', 'expired', 'timed_out'];
export const statusLabel = (s: string): string => s.replace(/_/g, ' ');

export function StatusBadge({ status }: { status: string }) {
  return html`<span class=${`badge status-${status}`}>${statusLabel(status)}</span>`;
}

/** A button that runs an async action, shows that it is busy, and reports a failure. */
export function busyRun(setBusy: (b: string) => void, setError: (e: unknown) => void, name: string, action: () => Promise<unknown>): void {
  setBusy(name);
  setError(undefined);
  action()
    .catch((err: unknown) => setError(err))
    .finally(() => setBusy(''));
}
