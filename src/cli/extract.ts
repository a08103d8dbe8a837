// `deep-research extract <url-or-file>`: fetch and parse alone, exactly as a research run would —
// the same fetch, the same word on whether the page builds its text by script (fetch.render), the
// same renderers (fetch.render_with) — so a person debugging a page sees what research reads.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { AppConfig } from '../config/schema';
import { appShellReason } from '../fetching/app-shell';
import { BrowserUnavailableError, INSTALL_HINT } from '../fetching/browser';
import { fetcherFromConfig } from '../fetching/fetcher';
import { Renderers } from '../fetching/renderers';
import { decode, kindOf, parseDocument, type ParsedDocument } from '../parsing';
import type { RenderedPage } from '../providers/fetch/types';
import { contentTypeForFile } from '../providers/search/local';

export interface Extraction extends ParsedDocument {
  url: string;
  final_url: string;
  content_type: string;
  bytes: number;
  /** The renderer that built the page's text by running it (chromium, jina, firecrawl), as research would have. */
  rendered_by?: string;
  /** Why the page needed rendering (an app shell: …; fetch.render is always). */
  render_reason?: string;
  /** The page needs rendering but was read as fetched: why (fetch.render is never, or nothing here can render). */
  unrendered?: string;
}

export async function extract(target: string, config: AppConfig): Promise<Extraction> {
  if (!/^[a-z][a-z0-9+.-]*:/i.test(target) || /^file:/i.test(target)) {
    const file = path.resolve(target.replace(/^file:\/\//i, ''));
    const contentType = contentTypeForFile(file) ?? 'text/plain';
    const bytes = await readFile(file).catch((err: NodeJS.ErrnoException) => {
      throw new Error(err.code === 'ENOENT' ? `no such file: ${file}` : err.code === 'EISDIR' ? `${file} is a folder, not a file` : `cannot read ${file}: ${err.code ?? err.message}`);
    });
    const doc = await parseDocument(bytes, contentType, `file://${file}`);
    return { ...doc, url: `file://${file}`, final_url: `file://${file}`, content_type: contentType, bytes: bytes.length };
  }
  const fetcher = fetcherFromConfig(config);
  let renderers: Renderers | undefined;
  try {
    const res = await fetcher.fetch(target, new AbortController().signal);
    const lastModified = { lastModified: res.lastModified };
    const doc = await parseDocument(res.body, res.contentType, res.finalUrl, lastModified);
    const fetched: Extraction = { ...doc, url: target, final_url: res.finalUrl, content_type: res.contentType || (kindOf('', res.finalUrl) ?? ''), bytes: res.body.length };
    const reason = renderReason(config, res.contentType, res.finalUrl, res.body, doc.text.length);
    if (!reason) return fetched;
    if (config.fetch.render === 'never') return { ...fetched, unrendered: reason };
    renderers = new Renderers(config, fetcher);
    const { rendered, missing } = await renderFirst(renderers, { url: res.finalUrl, html: res.body, contentType: res.contentType });
    if (!rendered) return { ...fetched, unrendered: `${reason}; nothing here can render it (${missing.join('; ')}): ${INSTALL_HINT}` };
    const html = Buffer.from(rendered.html, 'utf8');
    const page = await parseDocument(html, 'text/html; charset=utf-8', rendered.finalUrl, lastModified);
    return { ...page, url: target, final_url: rendered.finalUrl, content_type: fetched.content_type, bytes: html.length, rendered_by: rendered.renderer, render_reason: reason };
  } finally {
    await renderers?.close();
    await fetcher.close();
  }
}

/** Why research would render this page (fetch.render: always, or auto and an app shell); undefined: read as fetched. */
function renderReason(config: AppConfig, contentType: string, url: string, body: Buffer, extractedChars: number): string | undefined {
  if (kindOf(contentType, url) !== 'html') return undefined;
  if (config.fetch.render === 'always') return 'fetch.render is always';
  return appShellReason(decode(body, contentType), extractedChars);
}

/** The first renderer of fetch.render_with that can serve; one that turns out unable to passes to the next. */
async function renderFirst(renderers: Renderers, page: { url: string; html: Buffer; contentType: string }): Promise<{ rendered?: RenderedPage; missing: string[] }> {
  const { renderers: chain, missing } = renderers.chain();
  for (const renderer of chain) {
    try {
      return { rendered: await renderer.render(page, AbortSignal.timeout(120_000)), missing };
    } catch (err) {
      if (!(err instanceof BrowserUnavailableError)) throw err;
      missing.push(`${renderer.name}: ${err.message}`);
    }
  }
  return { missing };
}
