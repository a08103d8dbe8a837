// The scripted model's answers beside the research loop's own: claim judging, summaries,
// embeddings, the panel and the input check. Deterministic, from what the prompt says.

export function topicOf(prompt: string): string {
  const m = /Question:\n([\s\S]*?)(\n\n|$)/.exec(prompt) ?? /Research question:\n([\s\S]*?)(\n\n|$)/.exec(prompt);
  return (m?.[1] ?? 'the topic').trim().replace(/[?.!]+$/, '');
}

/** A claim is supported when one of its passages contains a number the claim states. */
export function claimSupport(prompt: string) {
  const numbers = (text: string) => text.match(/\d+(?:\.\d+)?/g) ?? [];
  const verdicts = [...prompt.matchAll(/<claim index="(\d+)">([\s\S]*?)<\/claim>/g)].map((m) => {
    const statement = /<statement>([\s\S]*?)<\/statement>/.exec(m[2])?.[1] ?? '';
    const inPassages = new Set([...m[2].matchAll(/<passage>([\s\S]*?)<\/passage>/g)].flatMap((p) => numbers(p[1])));
    const shared = numbers(statement).find((n) => inPassages.has(n));
    return {
      claim_index: Number(m[1]),
      supported: shared !== undefined,
      rationale: shared !== undefined ? `A passage states ${shared}.` : 'No passage states the numbers of the claim.',
    };
  });
  return { verdicts };
}

/** A summary that keeps the sentences with figures first, within the word limit it is given. */
export function contentSummary(prompt: string) {
  const limit = Number(/Word limit: (\d+)/.exec(prompt)?.[1] ?? 50);
  const content = /Content:\n([\s\S]*)$/.exec(prompt)?.[1] ?? '';
  const sentences = content.replace(/^#+ .*$/gm, '').match(/[^.!?\n]+[.!?]/g)?.map((x) => x.trim()) ?? [];
  const ordered = [...sentences.filter((x) => /\d/.test(x)), ...sentences.filter((x) => !/\d/.test(x))];
  const words: string[] = [];
  for (const sentence of ordered) {
    const next = sentence.split(/\s+/);
    if (words.length + next.length > limit - 2) break;
    words.push(...next);
  }
  return { summary: `Summary: ${words.join(' ') || content.split(/\s+/).slice(0, Math.max(1, limit - 2)).join(' ')}` };
}

/**
 * Deterministic embeddings for /v1/embeddings: each word counts toward the dimension of its
 * concept, so words of one concept (car, automobile, vehicle) embed alike although they share no
 * letters — what lexical search cannot see.
 */
export const EMBEDDING_CONCEPTS: Record<string, string> = {
  automobile: 'car', automobiles: 'car', vehicle: 'car', vehicles: 'car', cars: 'car', car: 'car', motorcar: 'car',
  physician: 'doctor', physicians: 'doctor', doctors: 'doctor', doctor: 'doctor', clinician: 'doctor',
};
const EMBEDDING_DIMS = 256;

export function fakeEmbedding(text: string): number[] {
  const vector = new Array<number>(EMBEDDING_DIMS).fill(0);
  for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    if (word.length < 3) continue;
    const concept = EMBEDDING_CONCEPTS[word] ?? word;
    let h = 2166136261; // FNV-1a
    for (const ch of concept) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
    vector[h % EMBEDDING_DIMS] += 1;
  }
  const norm = Math.hypot(...vector) || 1;
  return vector.map((v) => v / norm);
}

/** A panel member's answer: the first finding it was given, with its citation. */
export function panelAnswer(prompt: string) {
  const finding = /^- \(\w+\) (.*)$/m.exec(/Findings from the shared research:\n([\s\S]*?)\n\n/.exec(prompt)?.[1] ?? '')?.[1] ?? 'The evidence is thin.';
  const context = /Context given by the user \(([^)]*)\):\n([^\n]*)/.exec(prompt);
  return { answer: `On ${topicOf(prompt)}: ${finding}${context ? ` The user's ${context[1]} says: ${context[2]}` : ''}` };
}

/** Credits each answer's first line to its model, one shared paragraph to all, and a conflict between the first two. */
export function panelSynthesis(prompt: string) {
  const answers = [...prompt.matchAll(/<answer model="([^"]+)">\n([\s\S]*?)\n<\/answer>/g)].map((m) => ({ model: m[1], text: m[2] }));
  const paragraphs = [
    { text: `All panel members addressed ${topicOf(prompt)}.`, models: answers.map((a) => a.model) },
    ...answers.map((a) => ({ text: a.text.split('\n')[0], models: [a.model] })),
    { text: 'An uncredited aside.', models: ['openai:not-on-the-panel'] },
  ];
  const conflicts = answers.length >= 2
    ? [{ topic: 'the size of the effect', positions: answers.slice(0, 2).map((a, i) => ({ model: a.model, position: i === 0 ? 'large' : 'small' })) }]
    : [];
  return { paragraphs, conflicts, agreement: answers.length >= 2 ? 'medium' : 'high' };
}

/** Too short to research (< 3 words): 0; vague (< 8 words): 1 with a sharper version; else 2. */
export function inputCheck(prompt: string) {
  const question = /Research question:\n([\s\S]*)$/.exec(prompt)?.[1]?.trim() ?? '';
  const words = question.split(/\s+/).filter(Boolean).length;
  if (words < 3) return { quality: 0, reason: 'There is no researchable topic in so few words.', improved_prompt: `What is known about ${question || 'this topic'}, and what do recent sources say?` };
  if (words < 8) return { quality: 1, reason: 'The question is broad: no scope, place or time.', improved_prompt: `${question.replace(/[?.!]+$/, '')} in Europe since 2015, with figures?` };
  return { quality: 2, reason: 'Clear and specific.', improved_prompt: null };
}
