// Are the cited pages still there? Each URL is re-checked through the SafeFetcher (its SSRF guard,
// robots.txt and per-host politeness): HEAD first, GET cut off after the headers when HEAD is
// refused or fails.
import type { SafeFetcher } from '../fetching/fetcher';
import { FetchRefusedError } from '../fetching/guard';
import type { LinkCheck } from './types';

/** Servers that answer HEAD with these often serve GET fine. */
const HEAD_REFUSED = new Set([403, 405, 501]);

export interface LinkCheckOptions {
  signal: AbortSignal;
  concurrency?: number;
  /** Called after each URL (the activity heartbeats from it). */
  onProgress?: () => void;
}

type Prober = Pick<SafeFetcher, 'probe'>;

/** One check per distinct URL, in the order given; rejects with the abort reason when cancelled. */
export async function checkLinks(fetcher: Prober, urls: string[], opts: LinkCheckOptions): Promise<LinkCheck[]> {
  const distinct = [...new Set(urls)];
  const results: LinkCheck[] = new Array(distinct.length);
  let next = 0;
  const worker = async () => {
    while (next < distinct.length) {
      opts.signal.throwIfAborted();
      const index = next++;
      results[index] = await checkLink(fetcher, distinct[index], opts.signal);
      opts.onProgress?.();
    }
  };
  const workers = Array.from({ length: Math.max(1, Math.min(opts.concurrency ?? 32, distinct.length)) }, worker);
  await Promise.all(workers);
  return results;
}

export async function checkLink(fetcher: Prober, url: string, signal: AbortSignal): Promise<LinkCheck> {
  const head = await attempt(fetcher, url, 'HEAD', signal);
  if (head.refused || (head.status !== undefined && !HEAD_REFUSED.has(head.status))) return head;
  return attempt(fetcher, url, 'GET', signal);
}

async function attempt(fetcher: Prober, url: string, method: 'HEAD' | 'GET', signal: AbortSignal): Promise<LinkCheck> {
  try {
    const { status } = await fetcher.probe(url, method, signal);
    return { url, ok: status >= 200 && status < 400, status, method, checked_at: new Date().toISOString() };
  } catch (err) {
    // A cancelled activity stops here instead of recording every remaining link as failed.
    if (signal.aborted) throw signal.reason ?? err;
    const error = describeError(err);
    const refused = err instanceof FetchRefusedError;
    return { url, ok: false, method, error, ...(refused ? { refused } : {}), checked_at: new Date().toISOString() };
  }
}

function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err).slice(0, 300);
  const code = (err as { code?: string }).code;
  const message = err.name === 'TimeoutError' ? 'timed out' : err.message;
  return `${message}${code && !message.includes(code) ? ` (${code})` : ''}`.slice(0, 300);
}
