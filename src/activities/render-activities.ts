// The rendering fetch: a page whose HTML is an app shell is rendered — in the worker's browser or by a
// reader service (fetch.render_with) — and its DOM read by the same extraction, stored as an artifact
// like any page (its id is the source's snapshot). An activity of its own: it heartbeats, stops when
// cancelled, and a browser that crashes under it is a retry (on a new browser), not a lost worker. The
// rendered copy is cached under the page's URL, so a retry or another session does not render again.
import { ApplicationFailure } from '@temporalio/common';
import type { AppConfig } from '../config/schema';
import { BrowserCrashedError, BrowserUnavailableError, INSTALL_HINT } from '../fetching/browser';
import { FetchRefusedError } from '../fetching/guard';
import type { Renderers } from '../fetching/renderers';
import { READERS, type ReaderName } from '../providers/fetch/catalog';
import type { PageToRender, RenderedPage } from '../providers/fetch/types';
import type { FetchedPage } from '../domain/types';
import type { FetchCache } from '../stores/fetch-cache';
import { artifactIdOf, type ArtifactStore } from '../stores/artifacts';
import type { RenderPageInput, RenderPageOutput } from './contracts';
import { toFailure } from './errors';
import { withHeartbeat } from './heartbeat';
import { adoptArtifacts } from './adopted-artifacts';
import { parseFetched, type WebDeps } from './web-activities';

export interface RenderDeps extends Pick<WebDeps, 'artifacts' | 'judgePageText'> {
  config: AppConfig;
  artifacts: ArtifactStore;
  cache: FetchCache;
  renderers: Renderers;
}

/** Where the rendered copy of a page is cached: beside its fetched HTML, under a key of its own. */
const renderedKey = (url: string) => `rendered:${url}`;

export function createRenderActivities(deps: RenderDeps) {
  const { config, artifacts } = deps;

  return {
    async renderPage(input: RenderPageInput): Promise<RenderPageOutput> {
      const cached = await deps.cache.fresh(renderedKey(input.url), config.fetch.cache_ttl_seconds);
      if (cached) await adoptArtifacts(deps.cache, [cached.file_id]);
      if (cached && (await artifacts.describe(cached.file_id))) {
        const { url: _key, ...page } = cached;
        const outcome = input.parse ? await parseFetched(deps, await artifacts.get(page.file_id), page, input.parse) : {};
        return { ...page, ...outcome, from_cache: true };
      }
      const html = await artifacts.get(input.file_id);
      const rendered = await renderWithChain(deps.renderers, input, { url: input.final_url, html, contentType: input.content_type });
      const bytes = Buffer.from(rendered.html, 'utf8');
      const page: FetchedPage = {
        file_id: artifactIdOf(bytes),
        kind: 'html',
        content_type: 'text/html; charset=utf-8',
        final_url: rendered.finalUrl,
        status: 200,
        size: bytes.length,
        fetched_at: new Date().toISOString(),
      };
      const saved = (async () => {
        await artifacts.put(bytes, { name: `${input.url} (rendered)`, kind: 'html', source_url: input.url, content_type: page.content_type });
        await deps.cache.put({ url: renderedKey(input.url), ...page });
      })();
      const [outcome] = await Promise.all([input.parse ? parseFetched(deps, bytes, page, input.parse) : {}, saved]);
      const stats = rendered.stats ? { requests: rendered.stats.requests, refused: rendered.stats.refused } : {};
      return { ...page, ...outcome, rendered_by: rendered.renderer, ...stats };
    },
  };
}

/** The first renderer of the chain that can serve; one that turns out unable to (a browser that will not start) passes to the next. */
async function renderWithChain(renderers: Renderers, input: RenderPageInput, page: PageToRender): Promise<RenderedPage> {
  const { renderers: chain, missing } = renderers.chain();
  for (const renderer of chain) {
    try {
      return await withHeartbeat((signal) => renderer.render(page, signal), 1_000);
    } catch (err) {
      if (err instanceof BrowserUnavailableError) {
        missing.push(`${renderer.name}: ${err.message}`);
        continue;
      }
      if (err instanceof BrowserCrashedError) throw ApplicationFailure.retryable(`render ${input.url}: ${err.message}`, 'BrowserCrashed');
      if (err instanceof FetchRefusedError) throw ApplicationFailure.nonRetryable(err.message, 'FetchRefused');
      throw toFailure(err, `render ${input.url} with ${renderer.name}`, renderer.name in READERS ? READERS[renderer.name as ReaderName].keyEnv : undefined);
    }
  }
  throw ApplicationFailure.nonRetryable(`${input.url} needs a browser (${input.reason}) and nothing here can render it (${missing.join('; ')}): ${INSTALL_HINT}`, 'BrowserUnavailable');
}
