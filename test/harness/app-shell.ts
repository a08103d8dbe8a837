// Client-rendered pages as single-page apps serve them: a shell with an empty mount point, a
// <noscript> asking for JavaScript and a script bundle, which fetches the article as JSON and
// writes it into the page. The test web and bench:render serve pages this way.

/** The app's script: the article's JSON lives at /api<path>.json; its HTML goes into #app. */
export const APP_SCRIPT = `(function () {
  var root = document.getElementById('app');
  fetch('/api' + location.pathname + '.json', { headers: { accept: 'application/json' } })
    .then(function (res) { if (!res.ok) throw new Error('HTTP ' + res.status); return res.json(); })
    .then(function (article) {
      document.title = article.title;
      if (article.lang) document.documentElement.lang = article.lang;
      root.innerHTML = article.html;
    })
    .catch(function (err) { root.textContent = 'Could not load the article: ' + err.message; });
})();
`;

/** The shell: the page's head (its scripts and styles left out), an empty mount point and the bundle. */
export function appShellHtml(head = '<meta charset="utf-8"><title>Loading…</title>'): string {
  return `<!doctype html>
<html><head>${head}<script src="/static/app.js" defer></script></head>
<body><div id="app"></div><noscript>You need to enable JavaScript to run this app.</noscript></body></html>`;
}

export interface ArticleJson {
  title: string;
  lang?: string;
  /** The article's markup, as the app writes it into its mount point. */
  html: string;
}

/** A full page's head and body, split for serving it as a shell and its JSON. */
export function splitPage(page: string): { head: string; title: string; lang?: string; body: string } {
  const head = /<head\b[^>]*>([\s\S]*?)<\/head>/i.exec(page)?.[1] ?? '';
  const body = /<body\b[^>]*>([\s\S]*)<\/body>/i.exec(page)?.[1] ?? /<body\b[^>]*>([\s\S]*)$/i.exec(page)?.[1] ?? page;
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(head)?.[1]?.trim() ?? '';
  const lang = /<html\b[^>]*\blang\s*=\s*["']?([\w-]+)/i.exec(page)?.[1];
  // A copy served from elsewhere keeps no <base> (its bundle would load from the original site), refresh or CSP of the original.
  const quietHead = head
    .replace(/<(script|style|noscript)\b[\s\S]*?<\/\1\s*>/gi, '')
    .replace(/<(link|base)\b[^>]*>/gi, '')
    .replace(/<meta\b[^>]*http-equiv\s*=\s*["']?(refresh|content-security-policy)[^>]*>/gi, '');
  return { head: quietHead, title, ...(lang ? { lang } : {}), body };
}
