// Extraction quality and speed on the trafilatura evaluation set (../shared/data/extraction-trafilatura):
// precision, recall and F1 of must-have / must-not-have snippets, and ms per page: wall-clock and
// CPU (the process's own, which other work on a shared machine does not inflate).
//   npm run bench:extract [-- --limit 200]
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { decode } from '../src/parsing';
import { parseHtml } from '../src/parsing/html';

const dataDir = process.env.EXTRACTION_DATA ?? sharedData('extraction-trafilatura');
/** ../shared/data/<name> beside the checkout, or beside a folder above it (a worktree's). */
function sharedData(name: string): string {
  const candidates: string[] = [];
  for (let dir = path.join(__dirname, '..'); ; dir = path.dirname(dir)) {
    candidates.push(path.join(dir, '..', 'shared', 'data', name));
    if (path.dirname(dir) === dir) break;
  }
  return candidates.find((c) => existsSync(c)) ?? candidates[0];
}

const norm = (t: string) => t.replace(/\s+/g, ' ').trim();

function main(): void {
  if (!existsSync(path.join(dataDir, 'evaldata.json'))) {
    console.error(`no evaluation data at ${dataDir} (set EXTRACTION_DATA)`);
    process.exit(2);
  }
  const limitArg = process.argv.indexOf('--limit');
  const limit = limitArg > 0 ? Number(process.argv[limitArg + 1]) : Infinity;
  const data = JSON.parse(readFileSync(path.join(dataDir, 'evaldata.json'), 'utf8')) as Record<string, { file: string; with?: string[]; without?: string[] }>;
  let tp = 0, fn = 0, fp = 0, tn = 0, failures = 0, pages = 0;
  const times: number[] = [];
  const cpuTimes: number[] = [];
  for (const [url, entry] of Object.entries(data).slice(0, limit)) {
    const file = ['eval', 'cache'].map((d) => path.join(dataDir, d, entry.file)).find((f) => existsSync(f));
    const withs = (entry.with ?? []).map(norm);
    const withouts = (entry.without ?? []).map(norm);
    pages++;
    if (!file) {
      failures++;
      fn += withs.length;
      tn += withouts.length;
      continue;
    }
    const bytes = readFileSync(file);
    let text = '';
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    try {
      text = norm(parseHtml(decode(bytes, '', url), url).text);
    } catch {
      failures++;
    }
    times.push(performance.now() - t0);
    const cpu = process.cpuUsage(cpu0);
    cpuTimes.push((cpu.user + cpu.system) / 1000);
    for (const w of withs) (text.includes(w) ? tp++ : fn++);
    for (const w of withouts) (text.includes(w) ? fp++ : tn++);
  }
  times.sort((a, b) => a - b);
  cpuTimes.sort((a, b) => a - b);
  const q = (p: number, of = times) => of[Math.min(of.length - 1, Math.floor(p * of.length))];
  const precision = tp / (tp + fp);
  const recall = tp / (tp + fn);
  const f1 = (2 * precision * recall) / (precision + recall);
  console.log(`pages ${pages} (failed ${failures}); snippets: TP ${tp} FN ${fn} FP ${fp} TN ${tn}`);
  console.log(`precision ${precision.toFixed(3)}  recall ${recall.toFixed(3)}  F1 ${f1.toFixed(3)}  (target ≥ 0.92)`);
  console.log(`ms per page: median ${q(0.5).toFixed(0)}  p95 ${q(0.95).toFixed(0)}  (target median ≤ 100)`);
  console.log(`CPU ms per page: median ${q(0.5, cpuTimes).toFixed(0)}  p95 ${q(0.95, cpuTimes).toFixed(0)}`);
}

main();
