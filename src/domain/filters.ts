// What a person narrowed a session to: pages published since / until a date, from some domains or
// not from others (session settings since, until, include_domains, exclude_domains). Passed to each
// search provider's own filter where it has one, and enforced after search for every provider and
// again on the page's own date once it is read: a page outside is not read; a page that states no
// date is read and marked undated. Plain functions: the workflow and the activities share them.

export interface SearchFilters {
  /** YYYY-MM-DD, inclusive. */
  since?: string;
  until?: string;
  include_domains?: string[];
  exclude_domains?: string[];
}

const SPAN = /^(\d{1,4})\s*(d|w|m|y)$/i;
const DATE = /^\d{4}-\d{2}-\d{2}/;

/** A setting's since/until as a day: a date as given, or a span ("2y", "6m", "30d", "1w") back from `now`. */
export function dayOf(value: string, now: number): string | undefined {
  const text = value.trim();
  if (DATE.test(text)) return text.slice(0, 10);
  const span = SPAN.exec(text);
  if (!span) return undefined;
  const n = Number(span[1]);
  const at = new Date(now);
  const unit = span[2].toLowerCase();
  if (unit === 'd') at.setUTCDate(at.getUTCDate() - n);
  if (unit === 'w') at.setUTCDate(at.getUTCDate() - 7 * n);
  if (unit === 'm') at.setUTCMonth(at.getUTCMonth() - n);
  if (unit === 'y') at.setUTCFullYear(at.getUTCFullYear() - n);
  return at.toISOString().slice(0, 10);
}

/** The session's filters, its spans resolved against when it started; undefined when it sets none. */
export function sessionFilters(settings: { since?: string; until?: string; include_domains?: string[]; exclude_domains?: string[] }, startedAt: number): SearchFilters | undefined {
  const since = settings.since ? dayOf(settings.since, startedAt) : undefined;
  const until = settings.until ? dayOf(settings.until, startedAt) : undefined;
  const include = cleanDomains(settings.include_domains);
  const exclude = cleanDomains(settings.exclude_domains);
  const filters: SearchFilters = { ...(since ? { since } : {}), ...(until ? { until } : {}), ...(include.length ? { include_domains: include } : {}), ...(exclude.length ? { exclude_domains: exclude } : {}) };
  return Object.keys(filters).length ? filters : undefined;
}

function cleanDomains(list: string[] | undefined): string[] {
  return [...new Set((list ?? []).map((d) => d.trim().toLowerCase().replace(/^https?:\/\//, '').replace(/^www\./, '').replace(/\/.*$/, '')).filter(Boolean))];
}

function hostOf(url: string): string | undefined {
  const m = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/]*@)?([^/:?#]+)/i.exec(url);
  return m?.[1].toLowerCase().replace(/^www\./, '');
}

const within = (host: string, domain: string) => host === domain || host.endsWith(`.${domain}`);

/** Why the page at `url` is left out by the domain filters; undefined when it is not. */
export function leftOutByDomain(url: string, filters: SearchFilters | undefined): string | undefined {
  if (!filters || /^file:/i.test(url)) return undefined;
  const host = hostOf(url);
  if (!host) return undefined;
  if (filters.include_domains && !filters.include_domains.some((d) => within(host, d))) return `${host} is not one of the domains asked for (${filters.include_domains.join(', ')})`;
  const excluded = filters.exclude_domains?.find((d) => within(host, d));
  return excluded ? `${host} is in an excluded domain (${excluded})` : undefined;
}

/** Why a page published on `published` is left out by since/until; undefined when it is in range or states no date. */
export function leftOutByDate(published: string | undefined, filters: SearchFilters | undefined): string | undefined {
  if (!filters || !published || (!filters.since && !filters.until)) return undefined;
  const day = dayOfDate(published);
  if (!day) return undefined;
  if (filters.since && day < filters.since) return `published ${day}, before ${filters.since}`;
  if (filters.until && day > filters.until) return `published ${day}, after ${filters.until}`;
  return undefined;
}

/** YYYY-MM-DD of an ISO date or a date as providers write it ("Mon, 09 Dec 2024 16:00:00 GMT"); undefined when it is none. */
function dayOfDate(text: string): string | undefined {
  if (DATE.test(text)) return text.slice(0, 10);
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? new Date(ms).toISOString().slice(0, 10) : undefined;
}

/**
 * The first day of the period a question asks about, from the planner's time_scope as it wrote it
 * ("2020–2024", "since 2019", "the last two years", "seit 2021"): the earliest year it names, or
 * N years back from `now` for "last N years"; undefined when it names no start.
 */
export function scopeStart(timeScope: string | undefined, now: number): string | undefined {
  if (!timeScope) return undefined;
  const years = [...timeScope.matchAll(/\b(19\d{2}|20\d{2})\b/g)].map((m) => Number(m[1]));
  if (years.length) return `${Math.min(...years)}-01-01`;
  const words: Record<string, number> = { one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10 };
  const last = /\b(?:last|past)\s+(\d+|one|two|three|four|five|six|seven|eight|nine|ten)\s+years?\b/i.exec(timeScope);
  if (!last) return /\b(?:last|past)\s+year\b/i.test(timeScope) ? dayOf('1y', now) : undefined;
  const n = Number(last[1]) || words[last[1].toLowerCase()];
  return n ? dayOf(`${n}y`, now) : undefined;
}
