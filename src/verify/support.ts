// Does the cited source say what the sentence claims? Decided lexically when the overlap is clear
// either way; only the ambiguous middle goes to a model, which sees just the retrieved passages.
import type { CitedSentence } from '../report/sentences';
import { excerptFor, rankPassages, type Passage, type RankedPassage } from '../report/passages';
import type { ClaimCheck, ClaimVerdict } from './types';
import type { ClaimSupportAnswer, JudgeBatch } from '../roles/claim-judge';

/** Coverage at or above which a passage supports a claim, when it also has all the claim's numbers. */
export const SUPPORTED_COVERAGE = 0.75;
/** Coverage below which no passage is about the claim at all. */
export const RELEVANT_COVERAGE = 0.3;
const CLAIMS_PER_JUDGE_CALL = 10;
const PASSAGES_PER_CLAIM = 3;
/** Judge calls in flight at once (one per cited source that needs one, up to this). */
const JUDGE_CALLS_AT_ONCE = 4;

export type LexicalOutcome = 'supported' | 'unsupported' | 'ambiguous';

export function classifyLexically(best: RankedPassage | undefined): LexicalOutcome {
  if (!best || best.coverage < RELEVANT_COVERAGE) return 'unsupported';
  if (best.coverage >= SUPPORTED_COVERAGE && best.missingNumbers.length === 0) return 'supported';
  return 'ambiguous';
}

export interface JudgeVerdict {
  supported: boolean;
  rationale: string;
}
/** Answers each claim of a batch, by position; undefined where the model gave no verdict. */
export type Judge = (batch: JudgeBatch) => Promise<(JudgeVerdict | undefined)[]>;

/** Maps the model's answer back onto the batch's claims; unknown or repeated indexes are ignored. */
export function verdictsByIndex(answer: ClaimSupportAnswer, count: number): (JudgeVerdict | undefined)[] {
  const out: (JudgeVerdict | undefined)[] = new Array(count).fill(undefined);
  for (const v of answer.verdicts) {
    if (v.claim_index < count && !out[v.claim_index]) out[v.claim_index] = { supported: v.supported, rationale: v.rationale.trim().slice(0, 200) };
  }
  return out;
}


interface PairCheck {
  verdict: ClaimVerdict;
  method: 'lexical' | 'model';
  coverage: number;
  excerpt: string;
  rationale?: string;
}

interface PendingPair {
  claim: number;
  source: number;
  sentence: string;
  passages: RankedPassage[];
}

export interface ClaimCheckOptions {
  /** A source's passages, or undefined when its text cannot be had. */
  passagesOf: (sourceId: string) => Promise<Passage[] | undefined>;
  judge: Judge;
  signal?: AbortSignal;
  /**
   * Verdicts the judge gave before (on an earlier version of the same report), by claimKey: a pair
   * whose sentence and passages are unchanged is not asked again. The judge's new verdicts are added.
   */
  verdicts?: Map<string, JudgeVerdict>;
  /** Part of every key: the judge's model (another model's verdicts are not reused). */
  judgeName?: string;
}

/** What a judge's verdict on one pair depends on: the source, the sentence, the passages shown. */
export function claimKey(judgeName: string, sourceId: string, sentence: string, passages: string[]): string {
  return JSON.stringify([judgeName, sourceId, sentence, passages]);
}

/** One check per cited sentence: every (sentence, cited source) pair is checked, then combined. */
export async function checkClaims(sentences: CitedSentence[], opts: ClaimCheckOptions): Promise<ClaimCheck[]> {
  const pairs: PairCheck[][] = sentences.map(() => []);
  const pendingBySource = new Map<string, PendingPair[]>();
  for (const [claim, sentence] of sentences.entries()) {
    for (const [source, id] of sentence.source_ids.entries()) {
      opts.signal?.throwIfAborted();
      const passages = await opts.passagesOf(id);
      if (!passages?.length) {
        pairs[claim][source] = { verdict: 'unverifiable', method: 'lexical', coverage: 0, excerpt: '' };
        continue;
      }
      const ranked = rankPassages(sentence.text, passages, PASSAGES_PER_CLAIM);
      const outcome = classifyLexically(ranked[0]);
      const excerpt = ranked[0] ? excerptFor(sentence.text, ranked[0].passage.text) : '';
      const coverage = ranked[0]?.coverage ?? 0;
      if (outcome !== 'ambiguous') {
        pairs[claim][source] = { verdict: outcome, method: 'lexical', coverage, excerpt };
        continue;
      }
      const pair: PairCheck = (pairs[claim][source] = { verdict: 'unverifiable', method: 'model', coverage, excerpt });
      const shown = ranked.filter((r, i) => i === 0 || r.coverage > 0);
      const known = opts.verdicts?.get(keyOf(opts, id, sentence.text, shown));
      if (known) {
        judged(pair, known);
        continue;
      }
      const pending = pendingBySource.get(id) ?? [];
      pending.push({ claim, source, sentence: sentence.text, passages: shown });
      pendingBySource.set(id, pending);
    }
  }
  const batches = [...pendingBySource].flatMap(([sourceId, pending]) => Array.from({ length: Math.ceil(pending.length / CLAIMS_PER_JUDGE_CALL) }, (_, i) => ({ sourceId, batch: pending.slice(i * CLAIMS_PER_JUDGE_CALL, (i + 1) * CLAIMS_PER_JUDGE_CALL) })));
  // Each cited source's claims are one call: they go out side by side, not one after another.
  let next = 0;
  const lane = async () => {
    while (next < batches.length) {
      const { sourceId, batch } = batches[next++];
      opts.signal?.throwIfAborted();
      const verdicts = await opts.judge({ source_id: sourceId, claims: batch.map((p) => ({ sentence: p.sentence, passages: p.passages.map((r) => r.passage.text) })) });
      batch.forEach((p, j) => {
        const verdict = verdicts[j];
        if (!verdict) return;
        judged(pairs[p.claim][p.source], verdict);
        opts.verdicts?.set(keyOf(opts, sourceId, p.sentence, p.passages), verdict);
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(JUDGE_CALLS_AT_ONCE, batches.length) }, lane));
  return sentences.map((sentence, claim) => combine(sentence, pairs[claim]));
}

function judged(pair: PairCheck, verdict: JudgeVerdict): void {
  pair.verdict = verdict.supported ? 'supported' : 'unsupported';
  pair.rationale = verdict.rationale;
}

const keyOf = (opts: ClaimCheckOptions, sourceId: string, sentence: string, passages: RankedPassage[]) =>
  claimKey(opts.judgeName ?? '', sourceId, sentence, passages.map((r) => r.passage.text));

/**
 * Supported when any cited source supports the sentence; unverifiable when a source that might
 * could not be checked; unsupported only when every cited source was checked and none does.
 */
function combine(sentence: CitedSentence, pairs: PairCheck[]): ClaimCheck {
  const decided =
    pairs.find((p) => p.verdict === 'supported') ??
    pairs.find((p) => p.verdict === 'unverifiable') ??
    [...pairs].sort((a, b) => Number(b.method === 'model') - Number(a.method === 'model') || b.coverage - a.coverage)[0];
  const excerptFrom = decided.excerpt ? decided : [...pairs].sort((a, b) => b.coverage - a.coverage)[0];
  const unsupportedIds = decided.verdict === 'supported' ? sentence.source_ids.filter((_, i) => pairs[i]?.verdict === 'unsupported') : [];
  return {
    ...(unsupportedIds.length ? { unsupported_ids: unsupportedIds } : {}),
    sentence: sentence.text.slice(0, 400),
    source_ids: sentence.source_ids,
    verdict: decided.verdict,
    best_passage_excerpt: excerptFrom?.excerpt ?? '',
    method: decided.method,
    ...(decided.rationale ? { rationale: decided.rationale } : {}),
  };
}
