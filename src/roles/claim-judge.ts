// The claim judge: does a source's passages support each cited claim? Only the claims the lexical
// check leaves ambiguous come here (src/verify/support.ts), a batch per source.
import { z } from 'zod';
import type { ModelRoleSpec } from './role';

export const claimSupportSchema = z.object({
  verdicts: z.array(z.object({ claim_index: z.number().int().min(0), supported: z.boolean(), rationale: z.string() })),
});
export type ClaimSupportAnswer = z.infer<typeof claimSupportSchema>;

export const CLAIM_JUDGE_SYSTEM = [
  'You check whether passages from a source support claims made in a research report.',
  'Judge each claim only by the passages given with it, never by what you know otherwise.',
  'A claim is supported when its passages state it or directly imply it, including its numbers, dates and names;',
  'a claim that goes beyond, contradicts or is merely related to its passages is not supported.',
  'Give one verdict per claim, by its claim_index, with a one-sentence rationale.',
].join(' ');

/** The claim judge: a role of its own, answered by the critic's models. */
export const claimJudge: ModelRoleSpec<ClaimSupportAnswer> = { role: 'critic', name: 'claim_support', system: CLAIM_JUDGE_SYSTEM, schema: claimSupportSchema };

export interface JudgeBatch {
  source_id: string;
  claims: { sentence: string; passages: string[] }[];
}

export function judgePrompt(batch: JudgeBatch): string {
  const claims = batch.claims.map((claim, index) =>
    [
      `<claim index="${index}">`,
      `<statement>${stripTags(claim.sentence)}</statement>`,
      ...claim.passages.map((p) => `<passage>${stripTags(p)}</passage>`),
      '</claim>',
    ].join('\n'),
  );
  return `Source ${batch.source_id}. For each claim, do its passages support the statement?\n\n${claims.join('\n\n')}`;
}

function stripTags(text: string): string {
  return text.replace(/<\/?(?:claim|statement|passage)\b[^>]*>/gi, ' ');
}
