// The fake models' triage of a round's doubtful pages (the 'source_triage' call): read from the
// prompt as the product writes it (test/harness reads only what a real model would be shown).
// - triageByWords: a careless reader, by how many of the question's words the page's title,
//   snippet, opening and passage hold (every fake model answers so unless told otherwise);
// - triageFromLabels: a reader who knows the answer, from a person's labels of the pages (the
//   real-page world's judgements; a page "about the subject area but not the question" does not
//   address it, unless it holds enough of an enhanced version's focus's words): it tests
//   that the product asks well and uses the answer.
export interface TriagedPage {
  id: string;
  url: string;
  /** Title, snippet, opening and passage, as shown. */
  shown: string;
}

type Verdict = 'addresses' | 'partly' | 'no';

export function triageQuestion(prompt: string): string {
  return /Research question:\n([^\n]*)/.exec(prompt)?.[1]?.trim() ?? '';
}

/** An enhanced version's focus, as the prompt states it. */
export function triageFocus(prompt: string): string | undefined {
  return /asked to look into:\n([^\n]*)/.exec(prompt)?.[1]?.trim() || undefined;
}

export function triagedPages(prompt: string): TriagedPage[] {
  return [...prompt.matchAll(/<page id="([^"]+)" url="([^"]*)">\n([\s\S]*?)\n<\/page>/g)].map((m) => ({ id: m[1], url: m[2], shown: m[3] }));
}

const contentWords = (text: string) => new Set((text.toLowerCase().match(/[\p{L}\p{N}]{4,}/gu) ?? []).map((w) => w.slice(0, 6)));

function byWords(question: string, page: TriagedPage): { verdict: Verdict; why: string } {
  const asked = [...contentWords(question)];
  const shown = contentWords(page.shown);
  const share = asked.length ? asked.filter((w) => shown.has(w)).length / asked.length : 1;
  const verdict: Verdict = share >= 0.6 ? 'addresses' : share >= 0.4 ? 'partly' : 'no';
  return { verdict, why: `It holds ${Math.round(share * 100)} % of the question's words.` };
}

export function triageByWords(prompt: string) {
  const question = triageQuestion(prompt);
  return { verdicts: triagedPages(prompt).map((p) => ({ source_id: p.id, ...byWords(question, p) })) };
}

/** A person's label of a page for a question: on topic, borderline, off topic; undefined when unlabelled (judged by words). */
export type PageLabel = (question: string, url: string) => 'on' | 'borderline' | 'off' | 'unjudged' | undefined;

export function triageFromLabels(label: PageLabel): (prompt: string) => unknown {
  return (prompt) => {
    const question = triageQuestion(prompt);
    const focus = triageFocus(prompt);
    const asked: { id: string; url: string; verdict: Verdict }[] = [];
    const verdicts = triagedPages(prompt).map((p) => {
      const known = label(question, p.url);
      // Nobody labelled pages for a focus: one that holds enough of its words is about it.
      const byFocus = focus !== undefined && known !== 'on' ? byWords(focus, p).verdict : 'no';
      const judged =
        byFocus !== 'no'
        ? { verdict: byFocus, why: 'It is about what this version was asked to look into.' }
        : known === 'on'
          ? { verdict: 'addresses' as const, why: 'It is about what the question asks.' }
          : known === 'borderline'
            ? { verdict: 'no' as const, why: 'It is about the subject area, not what the question asks.' }
            : known === 'off'
              ? { verdict: 'no' as const, why: 'It is about something else.' }
              : byWords(question, p);
      asked.push({ id: p.id, url: p.url, verdict: judged.verdict });
      return { source_id: p.id, ...judged };
    });
    triageLog.push({ question, pages: asked });
    return { verdicts };
  };
}

/** Every triage the label reader answered, in order: what the product asked it about. */
export const triageLog: { question: string; pages: { id: string; url: string; verdict: Verdict }[] }[] = [];
