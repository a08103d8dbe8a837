// An outline section the writer left empty, though the research has findings for it, does not say
// it found nothing. The workflow names the findings that bear on each empty section (those read
// again for it, and those whose topic is its title); the final check writes them there itself,
// cited, or, when the report already says them elsewhere, says where.
import { detectLanguage } from './language';
import type { ReportLabels } from './labels';
import { allSentences } from './sentences';
import { subjectSimilarity, terms } from './words';

export interface SectionFinding {
  content: string;
  source_ids: string[];
}
export interface SectionFindings {
  section: string;
  findings: SectionFinding[];
}
/** What the final check did for an empty section that had findings. */
export interface SectionPlaced {
  section: string;
  /** Findings it wrote there. */
  written: number;
  /** The sections that already say the others. */
  under?: string[];
}

const MAX_PER_SECTION = 8;
const MAX_CHARS = 600;
/** A sentence that cites a finding's source and shares this much of its words says the finding. */
const SAYS_IT = 0.5;

interface FindingLike extends SectionFinding {
  id: string;
  category?: string;
}

/**
 * The findings that bear on each of the `empty` sections: the ones read again for it (split by
 * words between the sections read for together; one that matches none counts for each), and any
 * whose category names the section's subject.
 */
export function findingsForEmptySections(empty: string[], findings: FindingLike[], fill?: { sections: string[]; finding_ids: string[] }): SectionFindings[] {
  const readFor = fill ? fill.sections.filter((x) => empty.includes(x)) : [];
  const fillFindings = fill ? findings.filter((f) => fill.finding_ids.includes(f.id)) : [];
  const shares = (text: string, title: string) => {
    const own = new Set(terms(title));
    return terms(text).filter((t) => own.has(t)).length;
  };
  const out: SectionFindings[] = [];
  for (const section of empty) {
    const picked: FindingLike[] = [];
    if (readFor.includes(section)) {
      for (const f of fillFindings) {
        const scores = readFor.map((x) => shares(`${f.category ?? ''} ${f.content}`, x));
        const best = Math.max(...scores);
        if (best === 0 || scores[readFor.indexOf(section)] === best) picked.push(f);
      }
    }
    for (const f of findings) if (f.category && shares(f.category, section) > 0 && !picked.includes(f)) picked.push(f);
    if (picked.length) out.push({ section, findings: picked.slice(0, MAX_PER_SECTION).map((f) => ({ content: f.content.slice(0, MAX_CHARS), source_ids: f.source_ids })) });
  }
  return out;
}

interface Section {
  title: string;
  body: string;
}

/**
 * Fills the empty sections that have findings: each finding the report does not say elsewhere is
 * written there as a cited item (when it is in the report's language and its sources may be
 * cited); the ones said elsewhere are pointed at, by the sections that say them.
 */
export function placeSectionFindings(
  sections: Section[],
  given: SectionFindings[] | undefined,
  opts: { citable: (id: string) => boolean; language: string; labels: ReportLabels; isEmpty: (body: string) => boolean },
): SectionPlaced[] {
  const placed: SectionPlaced[] = [];
  const language = opts.language.toLowerCase().split(/[-_]/)[0];
  for (const { section, findings } of given ?? []) {
    const target = sections.find((s) => s.title === section);
    if (!target || !opts.isEmpty(target.body)) continue;
    const usable = findings.map((f) => ({ ...f, source_ids: f.source_ids.filter(opts.citable) })).filter((f) => f.source_ids.length && f.content.trim());
    const others = sections.filter((s) => s !== target && !opts.isEmpty(s.body));
    const write: SectionFinding[] = [];
    const under = new Set<string>();
    const elsewhereIds = new Set<string>();
    for (const f of usable) {
      const where = others.find((s) => allSentences(s.body).some((x) => x.source_ids.some((id) => f.source_ids.includes(id)) && subjectSimilarity(x.text, f.content) >= SAYS_IT));
      if (where) {
        under.add(where.title);
        f.source_ids.forEach((id) => elsewhereIds.add(id));
      } else if (detectLanguage(f.content) === language) write.push(f);
    }
    if (!write.length && !under.size) continue;
    const items = write.map((f) => `- ${citedItem(f)}`);
    const pointer = under.size ? [opts.labels.saidUnder(section, [...under].map((t) => opts.labels.quote(t)).join(', '), [...elsewhereIds].join(', '))] : [];
    target.body = [items.join('\n'), ...pointer].filter(Boolean).join('\n\n');
    placed.push({ section, written: write.length, ...(under.size ? { under: [...under] } : {}) });
  }
  return placed;
}

/** A finding as the report writes a claim: its own trailing citation dropped, its sources cited before the full stop. */
function citedItem(f: SectionFinding): string {
  const text = f.content.replace(/[\r\n]+/g, ' ').trim().replace(/\s*\[[^\]]*\]\s*([.。!?！？]?)$/u, '$1');
  const end = /[.。!?！？]$/u.exec(text)?.[0] ?? '.';
  return `${text.replace(/[.。!?！？]$/u, '')} [${f.source_ids.join(', ')}]${end}`;
}
