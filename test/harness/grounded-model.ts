// A grounded model for the real-page world: for every role the product calls it answers from what
// the prompt hands it, as a capable but careless model would.
// - planner: the question's plan (the world's, when it has one), else queries from its words;
// - analyzer: quotes real sentences of every source it is given as findings, whatever they are
//   about (the ones sharing most words with the question), rates most of them medium, and reports
//   gaps: the same one from every batch, and sometimes a finding's sentence with its citation;
// - writer (grounded-writer.ts): quotes findings, misattributes a quarter of its citations,
//   invents ids in several shapes and repeats itself across sections;
// - claim judge: honest, from the passages given (word overlap and numbers);
// - critic, refiner, supervisor, summarizer: short answers built from their prompts.
// Each choice is a function of the prompt, so a replayed or resumed run is answered alike.
import { contentSummary, inputCheck, panelAnswer, panelSynthesis } from './model-answers';
import { groundedPatch, type WriterLog } from './grounded-writer';
import { hash, overlap, quotableSentences, words } from './real-pages';
import { REAL_TRANSLATIONS } from './real-translations';

export interface GroundedPlan {
  queries: string[];
  outline: string[];
  /** The question as the sources say it, in their other languages. */
  translations?: { language: string; question: string }[];
}

export interface GroundedOptions {
  /** Plans by question, as a model would draft them for the world's questions. */
  plans?: Map<string, GroundedPlan>;
  /** Addresses of the world's pages are on this port (for a URL the writer invents). */
  webPort?: number;
  /** Answers the triage of doubtful pages ('source_triage'); absent, the fake model's triage by words does. */
  triage?: (prompt: string) => unknown;
}

export interface GroundedModel {
  respond(name: string | undefined, prompt: string): unknown;
  log: WriterLog;
}

const GERMAN = /\b(wie|welche[rsn]?|und|der|die|das|ist|wird|werden|für|viele|gibt|warum|wer)\b|[äöüß]/i;
const isGerman = (text: string) => GERMAN.test(text);
const SPANISH = /[¿¡ñ]|\b(por qué|cómo|qué|cuál|las|los|hubo|para|durante)\b/i;
const FRENCH = /\b(pourquoi|comment|quelle?s?|est-ce|l'|a-t-il|été|les|des)\b/i;
/** The question's language as a model's plan names it (the report is written in it). */
const languageOf = (text: string) => (isGerman(text) ? 'de' : SPANISH.test(text) ? 'es' : FRENCH.test(text) ? 'fr' : 'en');

const section = (prompt: string, label: string): string => new RegExp(`${label}:\\n([\\s\\S]*?)(?:\\n\\n|$)`).exec(prompt)?.[1]?.trim() ?? '';

/** Words that name the research itself, not its subject: a model does not search for them. */
const META = new Set('gap gaps gathering sub queries query completed fell short sources source findings finding research round critic reviewer iteration phase gate quality'.split(' '));

/** The question's content words, most telling first: capitalised ones (names, German nouns), then the rest in order. */
function keywords(question: string, n = 4): string[] {
  const seen = new Set<string>();
  const found: { w: string; capital: boolean; i: number }[] = [];
  (question.match(/[\p{L}\p{N}-]+/gu) ?? []).forEach((raw, i) => {
    const w = raw.toLowerCase();
    if (!words(w).length || seen.has(w) || w.length < 4 || META.has(w)) return;
    seen.add(w);
    found.push({ w: raw, capital: i > 0 && /^\p{Lu}/u.test(raw), i });
  });
  return found.sort((a, b) => Number(b.capital) - Number(a.capital) || a.i - b.i).slice(0, n).map((x) => x.w);
}

function plan(prompt: string, opts: GroundedOptions) {
  const question = section(prompt, 'Question');
  const german = isGerman(question);
  const known = opts.plans?.get(question);
  const subject = keywords(question);
  const queries = known?.queries ?? [question.replace(/[?!.]+$/, ''), subject.slice(0, 3).join(' '), `${subject.slice(0, 2).join(' ')} ${german ? 'Studie' : 'study'}`];
  const outline = known?.outline ?? (german ? ['Hintergrund', 'Wichtige Ergebnisse', 'Offene Punkte'] : ['Background', 'Key findings', 'Open issues']);
  const limit = Number(/Plan at most (\d+) expanded_queries/.exec(prompt)?.[1] ?? 5);
  return {
    clarifying_questions: [],
    expanded_queries: queries.slice(0, limit).map((query, i) => ({ query, rationale: german ? 'Deckt einen Teil der Frage ab.' : 'Covers part of the question.', priority: i + 1 })),
    outline,
    research_brief: german ? `Klären, was über „${question}“ bekannt ist, mit Quellen.` : `Establish what is known about "${question}", with sources.`,
    assumptions: [german ? 'Keine Einschränkung auf Region oder Zeitraum.' : 'No restriction to a region or period.'],
    context: { language: languageOf(question), domain: 'general', mode: 'standard', intent_summary: question, answer_style: [], time_scope: null, locale_scope: null },
    translations: known?.translations ?? REAL_TRANSLATIONS.get(question) ?? [],
  };
}

interface PromptSource {
  id: string;
  url: string;
  title: string;
  text: string;
}

function sourcesIn(prompt: string): PromptSource[] {
  return [...prompt.matchAll(/<source id="([^"]+)" url="([^"]*)" title="([^"]*)"[^>]*>\n([\s\S]*?)\n<\/source>/g)].map((m) => ({ id: m[1], url: m[2], title: m[3], text: m[4] }));
}

const CONFIDENCE = ['medium', 'medium', 'high', 'medium', 'low', 'medium', 'high', 'medium'] as const;

function analysis(prompt: string) {
  const question = section(prompt, 'Research question');
  const [iteration, max] = (/Iteration (\d+) of (\d+)/.exec(prompt)?.slice(1) ?? ['1', '1']).map(Number);
  const sources = sourcesIn(prompt);
  const findings = sources.flatMap((s) => {
    // The sentences sharing most words with the question, in page order: what a model would quote.
    const all = quotableSentences(s.text);
    const short = all.filter((x) => x.length <= 220);
    const sentences = short.length ? short : all;
    const ranked = sentences.map((text, i) => ({ text, i, score: overlap(question, text) })).sort((a, b) => b.score - a.score || a.i - b.i);
    const picked = ranked.slice(0, sentences.length > 12 ? 2 : 1).sort((a, b) => a.i - b.i);
    return picked.map((p) => ({ content: p.text, confidence: CONFIDENCE[hash(p.text) % CONFIDENCE.length], source_ids: [s.id], category: null }));
  });
  const source_quality = sources.map((s) => ({ source_id: s.id, quality: (['medium', 'medium', 'high', 'medium', 'low'] as const)[hash(s.url) % 5] }));
  const gaps = [];
  if (iteration < max && sources.length) {
    const german = isGerman(question);
    const subject = keywords(question, 3);
    // Every batch of an iteration reports this gap, word for word.
    gaps.push({
      description: german ? `Belastbare aktuelle Zahlen zu ${subject.join(', ')} fehlen noch` : `Recent figures on ${subject.join(', ')} are still missing`,
      suggested_queries: [`${subject.join(' ')} ${german ? 'Zahlen' : 'figures'} ${2021 + iteration}`],
      priority: 1,
    });
    // And half the batches turn a finding into a "gap", citation and all.
    const first = findings[0];
    if (first && hash(first.content) % 2 === 0) gaps.push({ description: `${first.content} [${first.source_ids[0]}]`, suggested_queries: [subject.slice(0, 2).join(' ')], priority: 2 });
  }
  return { findings, gaps, source_quality };
}

/** Supported when the passages hold most of the statement's words and every number it states. */
function claimSupport(prompt: string) {
  const verdicts = [...prompt.matchAll(/<claim index="(\d+)">([\s\S]*?)<\/claim>/g)].map((m) => {
    const statement = /<statement>([\s\S]*?)<\/statement>/.exec(m[2])?.[1] ?? '';
    const passages = [...m[2].matchAll(/<passage>([\s\S]*?)<\/passage>/g)].map((p) => p[1]).join('\n');
    const share = overlap(statement, passages);
    const numbers = statement.match(/\d+(?:[.,]\d+)?/g) ?? [];
    const missing = numbers.filter((n) => !passages.includes(n));
    const supported = share >= 0.7 && missing.length === 0;
    const rationale = supported
      ? `The passage states it (${Math.round(share * 100)} % of its words).`
      : missing.length
        ? `No passage states ${missing[0]}.`
        : `The passages share only ${Math.round(share * 100)} % of its words.`;
    return { claim_index: Number(m[1]), supported, rationale };
  });
  return { verdicts };
}

function critique(prompt: string) {
  const question = section(prompt, 'Research question');
  const review = Number(/Review (\d+) of at most/.exec(prompt)?.[1] ?? 1);
  const findings = [...prompt.matchAll(/^- (F\d+) \(/gm)].length;
  const german = isGerman(question);
  const subject = keywords(question, 3);
  if (review > 1 || findings >= 12) {
    return { verdict: 'PASS', feedback: german ? 'Die Befunde decken die Frage ausreichend ab.' : 'The findings cover the question well enough.', missing: [], suggested_queries: [], contradictions: [] };
  }
  return {
    verdict: 'REVISE',
    feedback: german ? `Zu wenige Belege zu ${subject.join(', ')}; die nächste Runde braucht Primärquellen.` : `Too little evidence on ${subject.join(', ')}; the next round needs primary sources.`,
    missing: [german ? `Primärquellen zu ${subject[0] ?? 'dem Thema'}` : `Primary sources on ${subject[0] ?? 'the topic'}`],
    suggested_queries: [`${subject.join(' ')} ${german ? 'Bericht' : 'report'}`],
    contradictions: [],
  };
}

/** Next round's queries from the open gaps: their suggestions, else their words with the question's subject (never a gap verbatim). */
function gapRefinement(prompt: string) {
  const question = section(prompt, 'Research question') || section(prompt, 'Question');
  const searched = new Set(section(prompt, 'Already searched[^\\n]*').split('\n').map((l) => l.replace(/^- /, '').trim().toLowerCase()));
  const open = [...section(prompt, 'Open gaps').matchAll(/^- \(priority (\d+)\) (.*?)(?: — suggested: (.*))?$/gm)];
  const gaps = open.slice(0, 4).map((m, i) => {
    const suggested = (m[3] ?? '').split(/;\s+/).map((q) => q.trim()).filter((q) => q && !searched.has(q.toLowerCase()));
    const own = [...new Set([...keywords(m[2], 3), ...keywords(question, 2)].map((w) => w.toLowerCase()))].join(' ');
    return { description: m[2], suggested_queries: [suggested[0] ?? own].slice(0, 3), priority: i + 1 };
  });
  return { gaps, rationale: gaps.length ? `${gaps.length} gap(s) to search next.` : 'Nothing left worth searching.' };
}

function phaseReflection(prompt: string) {
  const phase = /Phase: (\w+)/.exec(prompt)?.[1] ?? 'unknown';
  const passed = /Quality gate passed/.test(prompt);
  return { reflection: `The ${phase} phase ${passed ? 'passed' : 'failed'} its gate.`, retry: false, guidance_for_next_phase: 'Keep to the plan.', quality_score: passed ? 0.7 : 0.4 };
}

export function createGroundedModel(opts: GroundedOptions = {}): GroundedModel {
  const log: WriterLog = { misattributions: [], invented: [], repeats: [] };
  return {
    log,
    respond(name, prompt) {
      switch (name) {
        case 'research_plan':
          return plan(prompt, opts);
        case 'source_analysis':
          return analysis(prompt);
        case 'report_patch':
          return groundedPatch(prompt, log, opts.webPort ?? 80);
        case 'claim_support':
          return claimSupport(prompt);
        case 'critique':
          return critique(prompt);
        case 'gap_refinement':
          return gapRefinement(prompt);
        case 'phase_reflection':
          return phaseReflection(prompt);
        case 'content_summary':
          return contentSummary(prompt);
        case 'source_triage':
          return opts.triage?.(prompt);
        case 'input_check':
          return inputCheck(prompt);
        case 'panel_answer':
          return panelAnswer(prompt);
        case 'panel_synthesis':
          return panelSynthesis(prompt);
        default:
          return undefined;
      }
    },
  };
}
