// Whether a page addresses the question by meaning, from embeddings: its passages against the
// question (and the question as its sources say it in their languages). Embedding models rate
// unrelated texts well above zero, each model on its own scale (MiniLM's unrelated pairs sit near
// 0.05, OpenAI's near 0.2, nomic's near 0.45), so a cosine means nothing alone: a passage counts by
// how far it is closer to the question than to questions about other things (DECOY_QUESTIONS,
// embedded once per model). A passage of boilerplate close to every question gains nothing.
// Embeddings settle the clear cases; the model's triage the rest (see ADDRESSES_MARGIN).

/** addresses: read without asking a model; no: skipped; unsure: the model's triage decides. */
export type MeaningVerdictKind = 'addresses' | 'unsure' | 'no';

export interface MeaningVerdict {
  verdict: MeaningVerdictKind;
  /** How much closer the page's best passage is to the question than to any decoy (cosine difference). */
  margin: number;
  /** The best passage's cosine with the question. */
  cosine: number;
}

/**
 * Questions about everything and nothing in particular, in the languages questions come in: what
 * a passage is compared with besides the question. Varied on purpose: news, science, health,
 * money, sport, culture, technology, home, law, travel.
 */
export const DECOY_QUESTIONS = [
  'What is the best way to cook rice?',
  'Who won the football world cup final?',
  'How do I reset a forgotten email password?',
  'What causes the northern lights?',
  'How much does it cost to rent an apartment in the city?',
  'Which medicine helps against a headache?',
  'When was the Roman Empire founded?',
  'How do you train a puppy to stay?',
  'What are the rules of chess?',
  'How does the stock market work?',
  'Which new smartphone has the best camera?',
  'What should I pack for a beach holiday?',
  'How do plants grow from seeds?',
  'Who wrote the most famous novels of the century?',
  'What are the latest election results?',
  'How do I fix a leaking kitchen tap?',
  'Wie koche ich eine gute Suppe?',
  'Wer hat das Fußballspiel gewonnen?',
  '¿Cómo se prepara una buena paella?',
  '¿Quién ganó las elecciones?',
  "Comment réparer un vélo crevé ?",
  'Quel temps fera-t-il demain ?',
];

/** Decoys nearest the question say least about other things (a question on paella has its decoy): left out. */
const DECOYS_LEFT_OUT = 2;

/**
 * Margins (cosine over the nearest decoy) from which a page addresses the question without asking
 * a model, and below which it does not. Between them the model's triage decides: an embedding tells
 * what a page is about, not whether it answers what is asked (a readers' letter on climate policy
 * is as close to "how is climate change making wildfires worse" as an article that answers it), so
 * it settles only the clear cases. Measured with all-MiniLM-L6-v2 on the real-page world's 22
 * questions (docs/relevance.md): every page a person judges on topic has a margin of 0.10 or more,
 * two thirds of the off-topic pages the searches find less; no off-topic page reaches 0.45.
 */
export const ADDRESSES_MARGIN = 0.5;
export const NO_MARGIN = 0.1;

/**
 * The verdict on a page from its passages' vectors, the question's (one per language it is asked
 * or rendered in) and the decoys'. A page's best passage decides: one passage that answers makes a
 * page worth reading.
 */
export function meaningVerdict(passages: number[][], questions: number[][], decoys: number[][]): MeaningVerdict {
  // The decoys nearest any rendering of the question are left out: they may be about the same thing.
  const nearest = decoys.map((d, i) => ({ i, near: Math.max(...questions.map((q) => cosine(q, d))) })).sort((a, b) => b.near - a.near);
  const kept = new Set(nearest.slice(DECOYS_LEFT_OUT).map((x) => x.i));
  const others = decoys.filter((_, i) => kept.has(i));
  let best: MeaningVerdict = { verdict: 'no', margin: -1, cosine: 0 };
  for (const p of passages) {
    const toQuestion = Math.max(...questions.map((q) => cosine(p, q)));
    const toDecoy = Math.max(...others.map((d) => cosine(p, d)));
    const margin = toQuestion - toDecoy;
    if (margin > best.margin) best = { verdict: 'no', margin, cosine: toQuestion };
  }
  const round = (x: number) => Math.round(x * 1000) / 1000;
  const verdict: MeaningVerdictKind = best.margin >= ADDRESSES_MARGIN ? 'addresses' : best.margin < NO_MARGIN ? 'no' : 'unsure';
  return { verdict, margin: round(best.margin), cosine: round(best.cosine) };
}

/** The cosine of two vectors' angle: 1 the same direction, 0 unrelated. */
export function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}
