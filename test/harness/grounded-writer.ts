// The grounded model's report writer: it quotes the findings it is given (shortened to its
// character budget) and makes the mistakes real models make, each logged so a bench can tell
// whether the product caught it:
// - misattribution: a quarter of the findings cited to another source of the batch;
// - invented ids, two shapes per answer in turn: `[src-999]` in mid-paragraph before a claim it
//   already wrote (removing the invented one leaves that claim with a leading space), `[S99]`,
//   `(Source 12)`, a link to a page of a batch source's site that was never fetched, an id at a
//   paragraph's start and one after its full stop;
// - repeats: its first finding again in another section, with a leading space, other punctuation
//   or other whitespace; and, every other answer, a line of the current report again.
import { hash } from './real-pages';

export interface WriterLog {
  /** Sentences the writer cited to a source that did not say them. */
  misattributions: { question: string; sentence: string; cited: string; actual: string[] }[];
  /** Citations of sources that do not exist; `ids` are the sources the sentence came from. */
  invented: { question: string; citation: string; sentence: string; ids: string[] }[];
  repeats: { question: string; sentence: string; shape: string }[];
}

interface Item {
  text: string;
  ids: string[];
  cited: string[];
}

const MAX_PATCHES = 20;

const quoted = (line: string | undefined) => [...(line ?? '').matchAll(/"([^"]+)"/g)].map((m) => m[1]);

/** The first `max` characters of a sentence, cut at a word and closed with a full stop. */
function shorten(text: string, max: number): string {
  const t = text.trim();
  if (t.length <= max) return /[.!?]$/.test(t) ? t : `${t}.`;
  const cut = t.slice(0, max);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), max / 2)).replace(/[\s,;:–-]+$/, '')}.`;
}

const withoutStop = (t: string) => t.replace(/[.!?]+$/, '');

type Shape = (a: Item, b: Item, ctx: { hostOf: (id: string) => string | undefined; port: number; n: number }) => { citation: string; markdown: string };

const INVENTED: Shape[] = [
  (a, b) => ({ citation: '[src-999]', markdown: `${a.text} [src-999] ${b.text} [${b.cited.join(', ')}]` }),
  (a) => ({ citation: '[S99]', markdown: `- ${withoutStop(a.text)} [S99].` }),
  (a) => ({ citation: '(Source 12)', markdown: `${withoutStop(a.text)} (Source 12).` }),
  (a, _b, ctx) => {
    const url = `http://${ctx.hostOf(a.ids[0]) ?? 'www.example.org'}:${ctx.port}/archiv/nie-gelesen-${ctx.n}.html`;
    return { citation: url, markdown: `${withoutStop(a.text)} ([Quelle](${url})).` };
  },
  (a) => ({ citation: '[S98] (start)', markdown: `[S98] ${a.text}` }),
  (a) => ({ citation: '[S97] (end)', markdown: `${a.text} [S97]` }),
];

const REPEATS: [string, (b: Item) => string][] = [
  ['leading space', (b) => ` ${b.text} [${b.cited.join(', ')}]`],
  ['punctuation', (b) => `${withoutStop(b.text).replace(/, /g, ' – ')} [${b.cited.join(', ')}]!`],
  ['whitespace', (b) => `${b.text.replace(/ /g, '  ').replace(/^(\S+\s+\S+)\s+/, '$1\n')} [${b.cited.join(', ')}]`],
];

export function groundedPatch(prompt: string, log: WriterLog, port: number) {
  const question = /Research question:\n([\s\S]*?)\n\n/.exec(prompt)?.[1]?.trim() ?? '';
  const outline = quoted(/Outline sections: (.*)/.exec(prompt)?.[1]);
  const stillEmpty = quoted(/Still empty[^:]*: (.*)/.exec(prompt)?.[1]);
  const writable = stillEmpty.length ? stillEmpty : outline.length ? outline : ['Findings'];
  const findings = [...(/New findings:\n([\s\S]*?)\n\n/.exec(prompt)?.[1] ?? '').matchAll(/^- \(\w+\) (.*) \[([^\]]*)\]$/gm)].map((m) => ({ content: m[1], ids: m[2].split(/,\s*/) }));
  const sources = [...(/\nSources:\n([\s\S]*?)\n\n/.exec(prompt)?.[1] ?? '').matchAll(/^- \[(S\d+)\] .* — (\S+)$/gm)].map((m) => ({ id: m[1], url: m[2] }));
  const budget = Number(/Character budget for all patches: (\d+)/.exec(prompt)?.[1] ?? 800);
  const current = /Current report:\n([\s\S]*)$/.exec(prompt)?.[1] ?? '';
  if (!findings.length) return { patches: [] };

  // Everything it writes quotes findings: it shortens them so the whole answer fits its budget.
  const allowance = Math.max(120, Math.floor((budget * 0.9) / (findings.length + 2)));
  const items: Item[] = findings.map((f) => {
    const text = shorten(f.content, allowance);
    const others = sources.map((s) => s.id).filter((id) => !f.ids.includes(id));
    if (hash(f.content) % 4 === 1 && others.length) {
      const wrong = others[hash(`${f.content}#`) % others.length];
      log.misattributions.push({ question, sentence: text, cited: wrong, actual: f.ids });
      return { text, ids: f.ids, cited: [wrong] };
    }
    return { text, ids: f.ids, cited: f.ids };
  });
  const at = (i: number) => writable[i % writable.length];
  const patches: { section: string; markdown: string }[] = [];
  const [first] = items;
  patches.push({ section: at(0), markdown: `- ${first.text} [${first.cited.join(', ')}]` });

  const other = items[1] ?? first;
  const hostOf = (id: string) => {
    const url = sources.find((s) => s.id === id)?.url;
    return url && /^https?:/.test(url) ? new URL(url).hostname : undefined;
  };
  const k = hash(first.text);
  for (const shape of [INVENTED[k % INVENTED.length], INVENTED[(k + 3) % INVENTED.length]]) {
    const made = shape(other, first, { hostOf, port, n: k % 1000 });
    log.invented.push({ question, citation: made.citation, sentence: other.text, ids: other.ids });
    patches.push({ section: at(0), markdown: made.markdown });
  }
  const [shape, repeat] = REPEATS[k % REPEATS.length];
  log.repeats.push({ question, sentence: first.text, shape });
  patches.push({ section: at(1), markdown: repeat(first) });

  items.slice(1).forEach((item, i) => patches.push({ section: at(i + 1), markdown: `- ${item.text} [${item.cited.join(', ')}]` }));

  // Every other answer says again a line the report already has, in another section.
  const previous = /^- (.*\[S\d+\].*)$/m.exec(current)?.[1];
  if (previous && k % 2 === 0) {
    log.repeats.push({ question, sentence: previous, shape: 'from the report' });
    patches.push({ section: at(writable.length - 1), markdown: `- ${previous.replace(/ \[/, '  [')}` });
  }
  // The schema allows 20 patches: like a model keeping to it, the last ones join the one before of their section.
  while (patches.length > MAX_PATCHES) {
    const last = patches.pop() as { section: string; markdown: string };
    const host = [...patches].reverse().find((p) => p.section === last.section) ?? patches[patches.length - 1];
    host.markdown += `\n${last.markdown}`;
  }
  return { patches };
}
