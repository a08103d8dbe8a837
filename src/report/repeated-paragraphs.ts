// Panel reports say each thing once: a paragraph that repeats an earlier one sentence for sentence
// (as the living report's merge judges sentences) is kept once, the earlier one gaining its models
// and citations — in a synthesis and in answers laid side by side alike.
import { dedupePatch } from './dedupe';

export interface CreditedParagraph {
  text: string;
  models: string[];
}

/** The earlier paragraph `p` says again, after taking in p's models and citations; undefined when p says something new. */
function absorbRepeat(kept: CreditedParagraph[], p: CreditedParagraph): CreditedParagraph | undefined {
  for (const k of kept) {
    const merged = dedupePatch(k.text, p.text);
    if (merged.patch.trim() !== '') continue;
    k.text = merged.report;
    k.models = [...new Set([...k.models, ...p.models])];
    return k;
  }
  return undefined;
}

/** A synthesis's paragraphs with each repeat folded into the first that says it. */
export function mergeRepeatedParagraphs(paragraphs: CreditedParagraph[]): CreditedParagraph[] {
  const kept: CreditedParagraph[] = [];
  for (const p of paragraphs) if (!absorbRepeat(kept, p)) kept.push({ ...p });
  return kept;
}

/**
 * Each model's answer under its own heading; a paragraph an earlier answer already gave is not
 * printed again: the answer says whose it repeats.
 */
export function sideBySide(answers: { model: string; text: string }[]): string {
  const kept: CreditedParagraph[] = [];
  const sections = answers.map((a) => {
    const parts: (CreditedParagraph | { sameAs: string })[] = [];
    for (const text of a.text.split(/\n\s*\n/).map((t) => t.trim()).filter(Boolean)) {
      const own = { text, models: [a.model] };
      const earlier = absorbRepeat(kept, own);
      if (!earlier) {
        kept.push(own);
        parts.push(own);
      } else if (earlier.models[0] !== a.model) {
        parts.push({ sameAs: earlier.models[0] });
      }
    }
    return { model: a.model, parts };
  });
  return sections
    .map(({ model, parts }) => {
      const lines = parts.map((p) => ('sameAs' in p ? `*The same as ${p.sameAs}'s answer above.*` : p.text));
      return `## ${model}\n\n${lines.filter((line, i) => line !== lines[i - 1]).join('\n\n')}`;
    })
    .join('\n\n');
}
