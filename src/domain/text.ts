// Text keys shared by every layer: URLs and queries are deduplicated by one rule each.
// Pure string work: the workflow sandbox must not depend on Node's URL implementation.

const TRACKING_PARAM = /^(utm_[a-z]+|fbclid|gclid|mc_cid|mc_eid|ref_src)$/i;

export function normalizeUrl(url: string): string {
  const trimmed = url.trim().replace(/#.*$/, '');
  const match = /^([a-z][a-z0-9+.-]*):\/\/([^/?#]*)([^?#]*)(\?[^#]*)?$/i.exec(trimmed);
  if (!match) return trimmed;
  const [, scheme, authority, rawPath, rawQuery] = match;
  let host = authority.toLowerCase();
  if (scheme.toLowerCase() === 'http') host = host.replace(/:80$/, '');
  if (scheme.toLowerCase() === 'https') host = host.replace(/:443$/, '');
  const path = rawPath.replace(/\/+$/, '') || '';
  const params = (rawQuery ?? '')
    .replace(/^\?/, '')
    .split('&')
    .filter((p) => p && !TRACKING_PARAM.test(p.split('=')[0]))
    .sort();
  return `${scheme.toLowerCase()}://${host}${path}${params.length ? `?${params.join('&')}` : ''}`;
}

/** The key two queries share when they would search for the same thing. */
export function normalizeQuery(query: string): string {
  return query.toLowerCase().replace(/\s+/g, ' ').trim();
}

/** Queries once each by normalizeQuery (trimmed), skipping those in `seen`, which grows with every one kept. */
export function uniqueQueries(queries: string[], seen = new Set<string>()): string[] {
  const out: string[] = [];
  for (const query of queries) {
    const key = normalizeQuery(query);
    if (!key || seen.has(key)) continue;
    seen.add(key);
    out.push(query.trim());
  }
  return out;
}
