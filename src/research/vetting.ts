// Source credibility from the URL alone: which kind of publisher a host belongs to, and a score
// the analyzer's own quality rating can move. Deterministic and free of Node builtins, because
// the workflow calls it.
//
// How a host is matched:
// - An entry matches the host itself and every subdomain of it: "nature.com" matches
//   www.nature.com but not evilnature.com; "gov" matches census.gov but not gov.example.com.
// - The caller's lists are consulted first; the built-in ones only when none of the caller's
//   entries match. So configuration always wins over the defaults.
// - Within one layer, an "unverified" match wins outright (those domains are forced down);
//   otherwise the most specific (longest) entry wins, so ieeexplore.ieee.org (academic) beats
//   ieee.org (organization) and npr.org (news) beats org (organization). Equal lengths fall back
//   to TIER_PRECEDENCE.
//
// Decisions worth knowing:
// - Intergovernmental bodies (UN agencies, OECD, World Bank, IEA, the whole .int TLD, whose
//   registration is restricted to treaty organisations) count as government: their statistics
//   carry the same weight as national ones. Reasons mark them as intergovernmental.
// - Government outranks academic: nih.gov, and so PubMed (pubmed.ncbi.nlm.nih.gov), is
//   government, as is every .gov host. It also scores higher, so nothing is lost.
// - Open self-publishing platforms on otherwise trusted suffixes (academia.edu, researchgate.net)
//   are built-in "unverified".

export type CredibilityTier = 'government' | 'academic' | 'preprint' | 'organization' | 'news' | 'unverified';

export type AnalyzerQuality = 'low' | 'medium' | 'high';

export interface SourceCredibility {
  tier: CredibilityTier;
  /** 0..1: the tier's base score moved by the analyzer's rating. */
  score: number;
  reasons: string[];
}

/** Extra domains (or suffixes such as "gov.uk") per tier; `unverified` forces domains down. */
export interface VettingLists {
  government: string[];
  academic: string[];
  preprint: string[];
  organization: string[];
  news: string[];
  unverified: string[];
}

export const TIER_BASE_SCORE: Readonly<Record<CredibilityTier, number>> = {
  government: 0.9,
  academic: 0.85,
  organization: 0.7,
  preprint: 0.65,
  news: 0.6,
  unverified: 0.35,
};

export const QUALITY_ADJUSTMENT: Readonly<Record<AnalyzerQuality, number>> = {
  low: -0.15,
  medium: 0,
  high: 0.1,
};

/** Breaks ties between equally specific entries of different tiers; earlier wins. */
export const TIER_PRECEDENCE: readonly CredibilityTier[] = ['government', 'academic', 'preprint', 'organization', 'news'];

const INTERGOVERNMENTAL_DOMAINS = [
  'int',
  'un.org',
  'undp.org',
  'unep.org',
  'unesco.org',
  'unicef.org',
  'unhcr.org',
  'unctad.org',
  'worldbank.org',
  'imf.org',
  'oecd.org',
  'wto.org',
  'iaea.org',
  'ilo.org',
  'fao.org',
  'iea.org',
  'irena.org',
  'ipcc.ch',
  'bis.org',
  'paho.org',
];

export const DEFAULT_VETTING_LISTS: Readonly<VettingLists> = {
  government: [
    'gov',
    'mil',
    'gov.uk',
    'gov.au',
    'gov.nz',
    'govt.nz',
    'gc.ca',
    'canada.ca',
    'gouv.fr',
    'gouv.qc.ca',
    'gob.mx',
    'gob.es',
    'gov.br',
    'gov.in',
    'nic.in',
    'gov.ie',
    'gov.it',
    'gov.sg',
    'gov.za',
    'gov.cn',
    'gov.hk',
    'gov.tw',
    'go.jp',
    'go.kr',
    'bund.de',
    'admin.ch',
    'gv.at',
    'government.nl',
    'overheid.nl',
    'europa.eu',
    ...INTERGOVERNMENTAL_DOMAINS,
  ],
  academic: [
    'edu',
    'edu.au',
    'edu.cn',
    'edu.hk',
    'edu.sg',
    'edu.tw',
    'ac.uk',
    'ac.jp',
    'ac.nz',
    'ac.za',
    'ac.in',
    'ac.kr',
    'ac.il',
    'ac.at',
    'nature.com',
    'science.org',
    'sciencedirect.com',
    'cell.com',
    'springer.com',
    'springernature.com',
    'wiley.com',
    'tandfonline.com',
    'sagepub.com',
    'academic.oup.com',
    'cambridge.org',
    'jstor.org',
    'thelancet.com',
    'nejm.org',
    'bmj.com',
    'jamanetwork.com',
    'plos.org',
    'pnas.org',
    'frontiersin.org',
    'annualreviews.org',
    'journals.aps.org',
    'iopscience.iop.org',
    'pubs.acs.org',
    'pubs.rsc.org',
    'dl.acm.org',
    'ieeexplore.ieee.org',
    'europepmc.org',
    'semanticscholar.org',
    'doi.org',
  ],
  preprint: [
    'arxiv.org',
    'biorxiv.org',
    'medrxiv.org',
    'chemrxiv.org',
    'psyarxiv.com',
    'eartharxiv.org',
    'ssrn.com',
    'osf.io',
    'preprints.org',
    'researchsquare.com',
    'openreview.net',
    'hal.science',
    'zenodo.org',
  ],
  organization: [
    'org',
    'ietf.org',
    'rfc-editor.org',
    'w3.org',
    'iso.org',
    'ieee.org',
    'acm.org',
    'unicode.org',
    'ecma-international.org',
    'amnesty.org',
    'hrw.org',
    'pewresearch.org',
    'brookings.edu',
  ],
  news: [
    'reuters.com',
    'apnews.com',
    'afp.com',
    'bbc.co.uk',
    'bbc.com',
    'nytimes.com',
    'washingtonpost.com',
    'wsj.com',
    'bloomberg.com',
    'ft.com',
    'economist.com',
    'theguardian.com',
    'independent.co.uk',
    'telegraph.co.uk',
    'thetimes.co.uk',
    'npr.org',
    'pbs.org',
    'propublica.org',
    'cnn.com',
    'cnbc.com',
    'nbcnews.com',
    'cbsnews.com',
    'latimes.com',
    'usatoday.com',
    'politico.com',
    'politico.eu',
    'axios.com',
    'theatlantic.com',
    'newyorker.com',
    'time.com',
    'aljazeera.com',
    'dw.com',
    'france24.com',
    'lemonde.fr',
    'spiegel.de',
    'nikkei.com',
    'scmp.com',
    'abc.net.au',
    'cbc.ca',
    'arstechnica.com',
    'wired.com',
    'statnews.com',
  ],
  unverified: [
    'academia.edu',
    'researchgate.net',
    'medium.com',
    'substack.com',
    'blogspot.com',
    'wordpress.com',
  ],
};

const CLASSIFIED_TIERS = ['unverified', ...TIER_PRECEDENCE] as const;

interface ListMatch {
  tier: CredibilityTier;
  entry: string;
}

/** Classifies a source by its URL; an analyzer rating, when given, moves the score. */
export function classifySource(url: string, lists?: Partial<VettingLists>, analyzerQuality?: AnalyzerQuality): SourceCredibility {
  const host = hostOf(url);
  const { tier, reasons } = host === undefined ? { tier: 'unverified' as const, reasons: [`not a URL with a host: "${url}"`] } : classifyHost(host, lists);
  let score = TIER_BASE_SCORE[tier];
  if (analyzerQuality !== undefined && analyzerQuality !== 'medium') {
    const adjustment = QUALITY_ADJUSTMENT[analyzerQuality];
    score += adjustment;
    reasons.push(`analyzer rated it ${analyzerQuality}: ${adjustment > 0 ? '+' : ''}${adjustment.toFixed(2)}`);
  }
  return { tier, score: roundScore(Math.min(1, Math.max(0, score))), reasons };
}

function classifyHost(host: string, lists: Partial<VettingLists> | undefined): { tier: CredibilityTier; reasons: string[] } {
  if (isIpAddress(host)) return { tier: 'unverified', reasons: [`${host} is an IP address, not a domain`] };
  if (!host.includes('.')) return { tier: 'unverified', reasons: [`${host} is not a public domain`] };

  const configured = lists ? bestMatch(host, lists) : undefined;
  const match = configured ?? bestMatch(host, DEFAULT_VETTING_LISTS);
  if (!match) return { tier: 'unverified', reasons: [`${host} is on no list of known publishers`] };

  const origin = configured ? 'configured' : 'built-in';
  if (match.tier === 'unverified') return { tier: 'unverified', reasons: [`${host} is under ${match.entry}, forced to unverified (${origin})`] };
  const reasons = [`${host} is under ${match.entry} (${origin} ${match.tier} list)`];
  if (match.tier === 'government' && INTERGOVERNMENTAL_DOMAINS.includes(match.entry)) {
    reasons.push('intergovernmental body, counted as government');
  }
  return { tier: match.tier, reasons };
}

function bestMatch(host: string, lists: Partial<VettingLists>): ListMatch | undefined {
  let best: ListMatch | undefined;
  for (const tier of CLASSIFIED_TIERS) {
    for (const rawEntry of lists[tier] ?? []) {
      const entry = normalizeEntry(rawEntry);
      if (!entry || !isUnder(host, entry)) continue;
      if (tier === 'unverified') return { tier, entry };
      // Tiers are visited in precedence order, so only a strictly longer entry replaces a match.
      if (!best || entry.length > best.entry.length) best = { tier, entry };
    }
  }
  return best;
}

function isUnder(host: string, domain: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}

function normalizeEntry(entry: string): string {
  return entry
    .trim()
    .toLowerCase()
    .replace(/^[a-z][a-z0-9+.-]*:\/\//, '')
    .replace(/[/?#].*$/, '')
    .replace(/^(\*\.|\.)/, '')
    .replace(/\.$/, '');
}

/** The lower-case host name without a trailing dot, or undefined when there is none. */
export function hostOf(url: string): string | undefined {
  const trimmed = url.trim();
  if (!trimmed) return undefined;
  const hasScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) || /^(mailto|data|javascript|about|blob|tel|urn):/i.test(trimmed);
  const withScheme = hasScheme ? trimmed : `https://${trimmed}`;
  let hostname: string;
  try {
    hostname = new URL(withScheme).hostname;
  } catch {
    return undefined;
  }
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return host || undefined;
}

function isIpAddress(host: string): boolean {
  // The URL parser has already turned every IPv4 spelling (hex, octal, one number) into dotted form.
  return host.startsWith('[') || /^\d{1,3}(\.\d{1,3}){3}$/.test(host);
}

function roundScore(score: number): number {
  return Math.round(score * 100) / 100;
}
