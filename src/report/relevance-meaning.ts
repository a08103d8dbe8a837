// Whether a page addresses the question by meaning, from embeddings: its passages against the
// question (and the question as its sources say it in their languages). Embedding models rate
// unrelated texts well above zero, each model on its own scale (MiniLM's unrelated pairs sit near
// 0.05, OpenAI's near 0.2, nomic's near 0.45), so a cosine means nothing alone: a passage counts by
// how far it is closer to the question than to questions about other things (DECOY_QUESTIONS,
// embedded once per model). A passage of boilerplate close to every question gains nothing.
import { cosine } from '../providers/model/embeddings';

export type MeaningVerdictKind = 'addresses' | 'partly' | 'no';

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

/** Margins (cosine over the nearest decoy) from which a passage addresses the question, or partly. */
export const ADDRESSES_MARGIN = 0.1;
export const PARTLY_MARGIN = 0.04;

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
  const verdict: MeaningVerdictKind = best.margin >= ADDRESSES_MARGIN ? 'addresses' : best.margin >= PARTLY_MARGIN ? 'partly' : 'no';
  return { verdict, margin: round(best.margin), cosine: round(best.cosine) };
}
