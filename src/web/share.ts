// Share / unshare a session, with its read-only link shown and copyable.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api } from './api';
import { Alert } from './ui';

export const shareUrl = (token: string): string => `${location.origin}/share/${token}`;

export function ShareControl({ session, onChange }: { session: { research_id: string; shared: boolean; share_token?: string }; onChange: (s: any) => void }) {
  const [error, setError] = useState<unknown>();
  const [copied, setCopied] = useState(false);
  const id = `share-${session.research_id}`;
  const toggle = async () => {
    setError(undefined);
    try {
      onChange(await api(session.shared ? 'DELETE' : 'POST', `/api/research/${session.research_id}/share`));
    } catch (err) {
      setError(err);
    }
  };
  const copy = async (url: string) => {
    try {
      await navigator.clipboard.writeText(url);
    } catch {
      (document.getElementById(id) as HTMLInputElement | null)?.select();
    }
    setCopied(true);
  };
  return html`<span class="share">
    <button type="button" onClick=${toggle}>${session.shared ? 'Unshare' : 'Share'}</button>
    ${session.shared && session.share_token && html`<span class="share-link">
      <label class="sr-only" for=${id}>Read-only link</label>
      <input id=${id} class="share-url" readonly value=${shareUrl(session.share_token)} onFocus=${(e: Event) => (e.target as HTMLInputElement).select()} />
      <button type="button" onClick=${() => copy(shareUrl(session.share_token as string))}>Copy link</button>
      ${copied && html`<span role="status">Copied</span>`}
    </span>`}
    <${Alert} error=${error} />
  </span>`;
}
