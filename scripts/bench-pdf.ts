// PDF extraction on ../shared/data/pdf: the GeoTopo book's 4-gram shingle F1 against its ground
// truth, and every sample PDF either parsed or refused with a clear reason.
//   npm run bench:pdf
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseDocument } from '../src/parsing';

const dataDir = process.env.PDF_DATA ?? path.join(__dirname, '..', '..', 'shared', 'data', 'pdf');

function shingles(text: string): Map<string, number> {
  const tokens = text.match(/[\p{L}\p{N}_]+/gu) ?? [];
  const out = new Map<string, number>();
  for (let i = 0; i + 4 <= tokens.length; i++) {
    const key = tokens.slice(i, i + 4).join(' ');
    out.set(key, (out.get(key) ?? 0) + 1);
  }
  return out;
}

function shingleF1(extracted: string, reference: string): { precision: number; recall: number; f1: number } {
  const a = shingles(extracted);
  const b = shingles(reference);
  let tp = 0, na = 0, nb = 0;
  for (const [k, n] of a) {
    na += n;
    tp += Math.min(n, b.get(k) ?? 0);
  }
  for (const n of b.values()) nb += n;
  const precision = tp / na, recall = tp / nb;
  return { precision, recall, f1: (2 * precision * recall) / (precision + recall) };
}

function pdfFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return pdfFiles(full);
    return name.toLowerCase().endsWith('.pdf') ? [full] : [];
  });
}

async function main(): Promise<void> {
  if (!existsSync(dataDir)) {
    console.error(`no PDF data at ${dataDir} (set PDF_DATA)`);
    process.exit(2);
  }
  const book = path.join(dataDir, 'samples', '009-pdflatex-geotopo', 'GeoTopo-komprimiert.pdf');
  const t0 = performance.now();
  const parsed = await parseDocument(readFileSync(book), 'application/pdf', `file://${book}`);
  const ms = performance.now() - t0;
  const reference = readFileSync(path.join(dataDir, 'ground-truth', 'GeoTopo-book.txt'), 'utf8');
  const score = shingleF1(parsed.text.replace(/^\[page \d+\]$/gm, ''), reference);
  console.log(`GeoTopo book: ${parsed.sections} pages in ${ms.toFixed(0)} ms; shingle precision ${score.precision.toFixed(3)} recall ${score.recall.toFixed(3)} F1 ${score.f1.toFixed(3)} (target ≥ 0.92)`);
  // The model reads the markdown: the same text with page and heading lines.
  const md = shingleF1((parsed.markdown ?? '').replace(/^# Page \d+$/gm, ''), reference);
  const headings = (parsed.outline ?? []).filter((s) => s.path.length > 1).length;
  console.log(`  markdown: ${headings} headings detected; shingle precision ${md.precision.toFixed(3)} recall ${md.recall.toFixed(3)} F1 ${md.f1.toFixed(3)}`);
  let ok = 0, refused = 0;
  for (const file of pdfFiles(path.join(dataDir, 'samples'))) {
    const rel = path.relative(dataDir, file);
    try {
      const doc = await parseDocument(readFileSync(file), 'application/pdf', `file://${file}`);
      ok++;
      console.log(`  parsed   ${rel}: ${doc.sections} pages, ${doc.text.length} chars`);
    } catch (err) {
      refused++;
      console.log(`  refused  ${rel}: ${(err as Error).message}`);
    }
  }
  console.log(`sample PDFs: ${ok} parsed, ${refused} refused with a reason`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
