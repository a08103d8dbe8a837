// A date as a page writes it ("2019-11-19T03:05:46Z", "November 19, 2019", "19. November 2019",
// "Tue Nov 19 2019 03:05:46 GMT+0000", "19.11.2019", 1574132746) → ISO 8601: "2019-11-19" when
// only the day is known, "2019-11-19T03:05:46Z" or "2019-11-19T05:05:46+02:00" (its own offset kept) with a time. Placeholders
// (0001-01-01, the Unix and DOS epochs) and dates in the future are no date.

/** Web documents are no older than the web (1991); anything earlier is a placeholder or an error. */
const MIN_YEAR = 1991;
const FUTURE_SLACK_MS = 24 * 3600_000;
const EPOCH_PLACEHOLDERS = new Set(['1970-01-01', '1980-01-01']);

const MONTHS: Record<string, number> = {};
const MONTH_NAMES = [
  // English, German, French, Spanish, Italian, Dutch, Portuguese: full names and common abbreviations.
  'january jan januar janvier enero gennaio januari janeiro jän janv ene gen',
  'february feb februar février fevrier febrero febbraio februari fevereiro févr fev',
  'march mar märz maerz mars marzo maart março marco mrz mär',
  'april apr avril abril aprile abr avr',
  'may mai mayo maggio mei maio mag',
  'june jun juni juin junio giugno junho juin',
  'july jul juli juillet julio luglio julho juil lug',
  'august aug août aout agosto augustus ago',
  'september sep sept septembre septiembre settembre setembro set',
  'october oct oktober octobre octubre ottobre outubro okt ott out',
  'november nov novembre noviembre novembro',
  'december dec dezember décembre decembre diciembre dicembre dezembro dic dez déc',
];
MONTH_NAMES.forEach((names, i) => names.split(' ').forEach((name) => (MONTHS[name] = i + 1)));

const MONTH_WORD = '([a-zà-ÿ]{3,10})\\.?';
const TIME = '(?:[ T,]+(?:at |um |à )?(\\d{1,2}):(\\d{2})(?::(\\d{2}))?(?:\\.\\d+)?\\s*(am|pm)?)?';
const ZONE = '\\s*(z|[+-]\\d{2}:?\\d{2}|(?:gmt|utc)(?:[+-]\\d{2}:?\\d{2})?)?';

const ISO = new RegExp(`^(\\d{4})-(\\d{1,2})-(\\d{1,2})${TIME}${ZONE}`, 'i');
const SLASHED_YMD = new RegExp(`^(\\d{4})[/.](\\d{1,2})[/.](\\d{1,2})${TIME}${ZONE}`, 'i');
const COMPACT = /^(\d{4})(\d{2})(\d{2})(?:T?(\d{2})(\d{2})(\d{2})?)?(z)?$/i;
const DAY_DOTTED = new RegExp(`(?:^|\\D)(\\d{1,2})\\.\\s?(\\d{1,2})\\.\\s?(\\d{4})${TIME}`, 'i');
const DAY_MONTH_YEAR = new RegExp(`(?<!\\d)(\\d{1,2})(?:st|nd|rd|th|er|º)?\\.?\\s+(?:de\\s+)?${MONTH_WORD}\\s+(?:de\\s+)?(\\d{4})${TIME}${ZONE}`, 'gi');
const MONTH_DAY_YEAR = new RegExp(`(?<![a-zà-ÿ])${MONTH_WORD}\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})${TIME}${ZONE}`, 'gi');

interface Parts {
  year: number;
  month: number;
  day: number;
  hour?: number;
  minute?: number;
  second?: number;
  zone?: string;
}

/** The ISO 8601 form of a date as written, or undefined for no date, a placeholder, or the future. */
export function normalizeDate(raw: string | number | undefined | null, now: Date = new Date()): string | undefined {
  if (raw === undefined || raw === null) return undefined;
  const text = String(raw).trim().replace(/\s+/g, ' ');
  if (!text || text.length > 200) return undefined;
  const parts = partsOf(text);
  if (!parts || !valid(parts, now)) return undefined;
  return formatted(parts);
}

function partsOf(text: string): Parts | undefined {
  if (/^\d{9,13}$/.test(text)) return fromEpoch(Number(text));
  let m = ISO.exec(text) ?? SLASHED_YMD.exec(text);
  if (m) return withTime(+m[1], +m[2], +m[3], m.slice(4, 9));
  m = COMPACT.exec(text);
  if (m) return { year: +m[1], month: +m[2], day: +m[3], ...(m[4] ? { hour: +m[4], minute: +m[5], second: +(m[6] ?? 0), zone: m[7] ? 'Z' : undefined } : {}) };
  for (const w of text.matchAll(MONTH_DAY_YEAR)) {
    const month = MONTHS[w[1].toLowerCase()];
    if (month) return withTime(+w[3], month, +w[2], w.slice(4, 9));
  }
  for (const w of text.matchAll(DAY_MONTH_YEAR)) {
    const month = MONTHS[w[2].toLowerCase()];
    if (month) return withTime(+w[3], month, +w[1], w.slice(4, 9));
  }
  m = DAY_DOTTED.exec(text);
  if (m) return withTime(+m[3], +m[2], +m[1], [...m.slice(4, 8), undefined]);
  return undefined;
}

function fromEpoch(n: number): Parts | undefined {
  const ms = n > 1e11 ? n : n * 1000;
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return undefined;
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), hour: d.getUTCHours(), minute: d.getUTCMinutes(), second: d.getUTCSeconds(), zone: 'Z' };
}

function withTime(year: number, month: number, day: number, time: (string | undefined)[]): Parts {
  const [hour, minute, second, meridiem, zone] = time;
  if (hour === undefined || minute === undefined) return { year, month, day };
  let h = +hour;
  if (meridiem?.toLowerCase() === 'pm' && h < 12) h += 12;
  if (meridiem?.toLowerCase() === 'am' && h === 12) h = 0;
  return { year, month, day, hour: h, minute: +minute, second: second === undefined ? 0 : +second, zone: zoneOf(zone) };
}

function zoneOf(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  const z = raw.toLowerCase().replace(/^(gmt|utc)(?=[+-])/, '');
  if (z === 'z' || z === 'utc' || z === 'gmt') return 'Z';
  const m = /^([+-])(\d{2}):?(\d{2})$/.exec(z);
  return m ? `${m[1]}${m[2]}:${m[3]}` : undefined;
}

function valid(p: Parts, now: Date): boolean {
  if (p.year < MIN_YEAR || p.month < 1 || p.month > 12 || p.day < 1) return false;
  if (p.day > new Date(Date.UTC(p.year, p.month, 0)).getUTCDate()) return false;
  if (p.hour !== undefined && (p.hour > 23 || (p.minute ?? 0) > 59 || (p.second ?? 0) > 59)) return false;
  const day = formatted({ year: p.year, month: p.month, day: p.day });
  if (EPOCH_PLACEHOLDERS.has(day) && !p.hour && !p.minute) return false;
  const at = Date.parse(formatted(p.zone ? p : { ...p, zone: 'Z' }));
  return Number.isFinite(at) && at <= now.getTime() + FUTURE_SLACK_MS;
}

function formatted(p: Parts): string {
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  const day = `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}`;
  if (p.hour === undefined) return day;
  return `${day}T${pad(p.hour)}:${pad(p.minute ?? 0)}:${pad(p.second ?? 0)}${p.zone ?? ''}`;
}

/** A date in a URL's path: /2019/11/19/, /2019-11-19-, /20191119/ (a month alone is not a date). */
export function dateInUrl(url: string | undefined, now: Date = new Date()): string | undefined {
  if (!url) return undefined;
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return undefined;
  }
  const m =
    /\/((?:19|20)\d{2})\/(0?[1-9]|1[0-2])\/(0?[1-9]|[12]\d|3[01])(?:\/|$|[-_.])/.exec(path) ??
    /(?:^|[/_-])((?:19|20)\d{2})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(?=$|[/_.-])/.exec(path) ??
    /\/((?:19|20)\d{2})(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])(?=$|\/)/.exec(path);
  if (!m) return undefined;
  const parts = { year: +m[1], month: +m[2], day: +m[3] };
  return valid(parts, now) ? formatted(parts) : undefined;
}

/** The calendar day of an ISO date ("2019-11-19"), as written (its own offset, not UTC). */
export function dayOf(iso: string): string {
  return iso.slice(0, 10);
}
