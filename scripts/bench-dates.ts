// Published dates on real pages whose date is known apart from their markup: the pages of the
// trafilatura evaluation set (../shared/data/extraction-trafilatura) whose original URL holds a
// date (/2012/05/31/), parsed as served from an address without it. Prints how many get an ISO date,
// how many are wrong by more than 2 days, how many have none, and where the dates came from.
//   npm run bench:dates [-- --show]
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { decode } from '../src/parsing';
import { dateInUrl } from '../src/parsing/date-text';
import { parseHtml } from '../src/parsing/html';

function sharedData(name: string): string {
  const candidates: string[] = [];
  for (let dir = path.join(__dirname, '..'); ; dir = path.dirname(dir)) {
    candidates.push(path.join(dir, '..', 'shared', 'data', name));
    if (path.dirname(dir) === dir) break;
  }
  return candidates.find((c) => existsSync(c)) ?? candidates[0];
}

const DAY_MS = 86_400_000;

function main(): void {
  const dataDir = process.env.EXTRACTION_DATA ?? sharedData('extraction-trafilatura');
  if (!existsSync(path.join(dataDir, 'evaldata.json'))) {
    console.error(`no evaluation data at ${dataDir} (set EXTRACTION_DATA)`);
    process.exit(2);
  }
  const show = process.argv.includes('--show');
  const data = JSON.parse(readFileSync(path.join(dataDir, 'evaldata.json'), 'utf8')) as Record<string, { file: string }>;
  let pages = 0, dated = 0, wrong = 0, none = 0, notIso = 0;
  const from = new Map<string, number>();
  for (const [url, entry] of Object.entries(data)) {
    const known = dateInUrl(url);
    const file = ['eval', 'cache'].map((d) => path.join(dataDir, d, entry.file)).find((f) => existsSync(f));
    if (!known || !file) continue;
    pages++;
    let meta: ReturnType<typeof parseHtml>['meta'];
    try {
      const bytes = readFileSync(file);
      meta = parseHtml(decode(bytes, 'text/html', url), 'https://served.invalid/page').meta;
    } catch {
      meta = undefined;
    }
    const published = meta?.published;
    if (!published) {
      none++;
      if (show) console.log(`none   ${url}`);
      continue;
    }
    if (!/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}([+-]\d{2}:\d{2}|Z)?)?$/.test(published)) notIso++;
    from.set(meta?.published_from ?? '?', (from.get(meta?.published_from ?? '?') ?? 0) + 1);
    const off = Math.abs(Date.parse(published.slice(0, 10)) - Date.parse(known)) / DAY_MS;
    if (off > 2) {
      wrong++;
      if (show) console.log(`wrong  ${published} (${meta?.published_from}) vs ${known}  ${url}`);
    } else dated++;
  }
  const pct = (n: number) => `${((100 * n) / Math.max(1, pages)).toFixed(1)} %`;
  console.log(`pages with a date in their original URL: ${pages}`);
  console.log(`published within 2 days: ${dated} (${pct(dated)}); wrong by more than 2 days: ${wrong}; none: ${none}; not ISO: ${notIso}`);
  console.log(`found in: ${[...from.entries()].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`).join(', ')}`);
}

main();
