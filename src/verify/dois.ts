// Do the cited DOIs still resolve? A DOI is checked like a link, through its resolver
// (https://doi.org/<doi> by default): the resolver redirects a registered DOI to the publisher and
// answers 404 for one it does not know. DOIs come from the cited sources' metadata (academic search
// results carry them) and from the report's own sections (`doi:10.…`, `https://doi.org/10.…`), not
// from its generated Sources and Notes, where pages skipped unread are listed. Only an answer of the
// resolver that it does not know the DOI (404, 410) means it does not resolve; no answer (the
// resolver unreachable, a timeout, an error of its own) means it could not be checked.
import type { SafeFetcher } from '../fetching/fetcher';
import { isGenerated, parseReport, renderReport } from '../report/markdown';
import { checkLinks } from './links';
import type { DoiCheck, SourceToVerify } from './types';

export const DEFAULT_DOI_RESOLVER = 'https://doi.org';

// The DOI Handbook: "10." + registrant code, "/", then any printable suffix; we stop at whitespace,
// quotes, angle brackets and closing brackets, and drop trailing sentence punctuation.
const DOI_IN_TEXT = /\b(10\.\d{4,9}\/[^\s"'<>\]\)]+)/g;

export function normalizeDoi(raw: string): string | undefined {
  const match = /10\.\d{4,9}\/\S+/.exec(decodeURIComponentSafe(raw.trim()));
  if (!match) return undefined;
  return match[0].replace(/[.,;:]+$/, '').toLowerCase();
}

export function doisInText(markdown: string): string[] {
  const found = new Set<string>();
  for (const m of markdown.matchAll(DOI_IN_TEXT)) {
    const doi = normalizeDoi(m[1]);
    if (doi) found.add(doi);
  }
  return [...found];
}

export function resolverUrl(resolver: string, doi: string): string {
  // Each suffix character that is special in URLs is escaped; "/" stays (the resolver expects it).
  return `${resolver.replace(/\/+$/, '')}/${doi.split('/').map(encodeURIComponent).join('/')}`;
}

/** Which DOIs to check, each with the sources that carry it: the cited sources' and those the report's own sections give. */
export function citedDois(markdown: string, cited: SourceToVerify[]): Map<string, string[]> {
  const dois = new Map<string, string[]>();
  for (const source of cited) {
    const doi = source.doi ? normalizeDoi(source.doi) : undefined;
    if (doi) dois.set(doi, [...(dois.get(doi) ?? []), source.id]);
  }
  const report = parseReport(markdown);
  const own = renderReport({ head: report.head, sections: report.sections.filter((s) => !isGenerated(s.title)) });
  for (const doi of doisInText(own)) if (!dois.has(doi)) dois.set(doi, []);
  return dois;
}

/** What the resolver's answer says: resolved, not known to it, or no verdict (no answer, its own error). */
export function doiVerdict(check: Pick<DoiCheck, 'ok' | 'status'>): 'resolved' | 'unresolved' | 'unchecked' {
  if (check.ok) return 'resolved';
  return check.status === 404 || check.status === 410 ? 'unresolved' : 'unchecked';
}

export async function checkDois(
  fetcher: Pick<SafeFetcher, 'probe'>,
  dois: Map<string, string[]>,
  opts: { resolver: string; signal: AbortSignal; concurrency?: number; onProgress?: () => void },
): Promise<DoiCheck[]> {
  const entries = [...dois.entries()];
  const links = await checkLinks(
    fetcher,
    entries.map(([doi]) => resolverUrl(opts.resolver, doi)),
    { signal: opts.signal, concurrency: opts.concurrency, onProgress: opts.onProgress },
  );
  return entries.map(([doi, sourceIds], i) => {
    const link = links[i];
    return {
      doi,
      source_ids: sourceIds,
      ok: link.ok,
      ...(link.status !== undefined ? { status: link.status } : {}),
      ...(link.error ? { error: link.error } : {}),
      checked_at: link.checked_at,
    };
  });
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
