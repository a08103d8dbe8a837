// Small pieces the views share: navigation, messages, dates and numbers, status names.
import { html } from 'htm/preact';
import { DRAFT_STATUS, isTerminal, isWaiting, LISTED_STATUSES, TERMINAL_STATUSES } from '../domain/names';
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

export const STATUSES: readonly string[] = LISTED_STATUSES;
export const TERMINAL: readonly string[] = TERMINAL_STATUSES;
export const statusLabel = (s: string): string => s.replace(/_/g, ' ');

/**
 * The badge and the phase line, from one snapshot: the phase is named only while work runs; a
 * session that waits for someone or has ended is the badge's to describe (a report awaiting review
 * is no longer "verifying").
 */
export function stageOf(status: string, phase?: string): { status: string; phase?: string } {
  const working = phase !== undefined && status !== DRAFT_STATUS && !isWaiting(status) && !isTerminal(status);
  return working ? { status, phase: statusLabel(phase) } : { status };
}

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
