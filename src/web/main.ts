// The web app's shell: a header, hash routes (#/ sessions, #/new, #/r/<id>), and the API token
// form for servers that require one.
import { html } from 'htm/preact';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { token } from './api';
import { NewResearch } from './new-research';
import { SessionList } from './session-list';
import { SessionView } from './session-view';

type Route = { name: 'list' } | { name: 'new' } | { name: 'session'; id: string };

function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, '') || '/';
  const session = /^\/r\/([A-Za-z0-9_.-]{1,64})$/.exec(path);
  if (session) return { name: 'session', id: session[1] };
  if (path === '/new') return { name: 'new' };
  return { name: 'list' };
}

function TokenForm() {
  const [value, setValue] = useState(token.get());
  const [saved, setSaved] = useState(false);
  return html`<details class="token">
    <summary>API token</summary>
    <form onSubmit=${(e: Event) => {
      e.preventDefault();
      token.set(value.trim());
      setSaved(true);
      location.reload();
    }}>
      <label for="token-input">Token (only needed when the server requires one)</label>
      <input id="token-input" type="password" autocomplete="off" value=${value} onInput=${(e: Event) => setValue((e.target as HTMLInputElement).value)} />
      <button type="submit">Save</button>
      ${saved && html`<span role="status">Saved</span>`}
    </form>
  </details>`;
}

function App() {
  const [route, setRoute] = useState<Route>(parseRoute(location.hash));
  useEffect(() => {
    const onHash = () => {
      setRoute(parseRoute(location.hash));
      document.getElementById('main')?.focus();
    };
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  return html`
    <a class="skip" href="#main" onClick=${(e: Event) => {
      e.preventDefault();
      document.getElementById('main')?.focus();
    }}>Skip to content</a>
    <header class="top">
      <a class="brand" href="#/">deep-research</a>
      <nav aria-label="Main">
        <a href="#/" aria-current=${route.name === 'list' ? 'page' : undefined}>Sessions</a>
        <a href="#/new" aria-current=${route.name === 'new' ? 'page' : undefined}>New research</a>
      </nav>
      <${TokenForm} />
    </header>
    <main id="main" tabindex="-1">
      ${route.name === 'list' && html`<${SessionList} />`}
      ${route.name === 'new' && html`<${NewResearch} />`}
      ${route.name === 'session' && html`<${SessionView} key=${route.id} id=${route.id} />`}
    </main>`;
}

const root = document.getElementById('app') as HTMLElement;
// The page's own "Loading…" (shown until this script runs) goes: Preact would keep it beside the app.
root.replaceChildren();
render(html`<${App} />`, root);
