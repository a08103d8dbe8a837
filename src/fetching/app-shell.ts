// Does this page need a browser? A single-page app serves a shell — a mount point left empty,
// "enable JavaScript" in a <noscript>, script bundles — and fetches its article once running. Told
// from such signals in the HTML and from how much text its extraction found, never from a list of
// sites. A page with an article in its HTML never needs one, whatever scripts it carries.

/** Extracted text this long is an article (or enough of a page to read) without any script. */
const ARTICLE_CHARS = 2_000;
/** Below this, a page with scripts shows nothing worth reading until they run. */
const NOTHING_CHARS = 200;
/** Visible text in the whole body below which an empty element is the app's mount point. */
const SHELL_BODY_CHARS = 300;

export interface ShellSignals {
  /** Characters of text the extraction found. */
  text: number;
  /** Visible characters in the whole body, markup and scripts left out. */
  body: number;
  scripts: number;
  /** Bytes of script written into the page itself. */
  inlineScriptBytes: number;
  emptyRoot: boolean;
  noscriptAsksForScript: boolean;
}

/**
 * Why the page needs a browser to show its text, or undefined when it does not.
 * `extractedChars` is the length of the text its HTML's extraction found (0 when none).
 */
export function appShellReason(html: string, extractedChars: number): string | undefined {
  if (extractedChars >= ARTICLE_CHARS) return undefined;
  const s = shellSignals(html, extractedChars);
  if (s.scripts === 0) return undefined;
  const why: string[] = [];
  if (s.text < NOTHING_CHARS) why.push(s.text ? `only ${s.text} characters of text` : 'no text');
  if (s.emptyRoot) why.push('an empty root element');
  if (s.noscriptAsksForScript && s.text < NOTHING_CHARS * 2.5) why.push('a <noscript> asking for JavaScript');
  if (!why.length) return undefined;
  why.push(`${s.scripts} script${s.scripts === 1 ? '' : 's'}${s.inlineScriptBytes > 10_000 ? ` (${Math.round(s.inlineScriptBytes / 1024)} KB inline)` : ''}`);
  return `an app shell: ${why.join(', ')}`;
}

export function shellSignals(html: string, extractedChars: number): ShellSignals {
  const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)].filter(([, attrs]) => isExecutable(attrs));
  const body = /<body\b[^>]*>([\s\S]*)$/i.exec(html)?.[1] ?? html;
  const markup = body.replace(/<!--[\s\S]*?-->/g, '').replace(/<(script|style|noscript|template|svg)\b[\s\S]*?<\/\1\s*>/gi, '');
  const visible = markup.replace(/<[^>]*>/g, ' ').replace(/&[#\w]+;/g, ' ').replace(/\s+/g, '').length;
  return {
    text: extractedChars,
    body: visible,
    scripts: scripts.length,
    inlineScriptBytes: scripts.reduce((n, [, , code]) => n + code.length, 0),
    emptyRoot: visible < SHELL_BODY_CHARS && /<([a-z][\w-]*)\b[^>]*\bid\s*=\s*["']?[\w-]+["']?[^>]*>\s*<\/\1\s*>/i.test(markup),
    noscriptAsksForScript: /<noscript\b[^>]*>(?:(?!<\/noscript)[\s\S])*?java\s*script(?:(?!<\/noscript)[\s\S])*<\/noscript>/i.test(body),
  };
}

/** Scripts the browser would run: no type, a JavaScript type or a module (not JSON data, not templates). */
function isExecutable(attrs: string): boolean {
  const type = /\btype\s*=\s*["']?([^"'\s>]+)/i.exec(attrs)?.[1]?.toLowerCase();
  return !type || type === 'module' || /javascript|ecmascript/.test(type);
}
