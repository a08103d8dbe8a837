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
      pairs[claim][source] = { verdict: 'unverifiable', method: 'model', coverage, excerpt };
      const pending = pendingBySource.get(id) ?? [];
      pending.push({ claim, source, sentence: sentence.text, passages: ranked.filter((r, i) => i === 0 || r.coverage > 0) });
      pendingBySource.set(id, pending);
    }
  }
  for (const [sourceId, pending] of pendingBySource) {
    for (let i = 0; i < pending.length; i += CLAIMS_PER_JUDGE_CALL) {
      opts.signal?.throwIfAborted();
      const batch = pending.slice(i, i + CLAIMS_PER_JUDGE_CALL);
      const verdicts = await opts.judge({ source_id: sourceId, claims: batch.map((p) => ({ sentence: p.sentence, passages: p.passages.map((r) => r.passage.text) })) });
      batch.forEach((p, j) => {
        const verdict = verdicts[j];
        if (!verdict) return;
        const pair = pairs[p.claim][p.source];
        pair.verdict = verdict.supported ? 'supported' : 'unsupported';
        pair.rationale = verdict.rationale;
      });
    }
  }
  return sentences.map((sentence, claim) => combine(sentence, pairs[claim]));
}

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
