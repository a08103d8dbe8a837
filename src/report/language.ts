// The question's language when the planner did not say, or said something its script rules out.
// The script tells Chinese, Japanese, Korean, Cyrillic, Arabic, Hebrew, Greek, Thai and Devanagari
// text apart; within a script (Cyrillic: Russian, Ukrainian, Bulgarian…) the planner's word wins.
// Latin-script questions are told apart by their commonest function words.

interface Script {
  pattern: RegExp;
  /** The language assumed when the planner names none. */
  language: string;
  /** Languages written in this script that a planner may rightly name. */
  family: string[];
}

const SCRIPTS: Script[] = [
  { pattern: /[\u3040-\u30ff]/u, language: 'ja', family: ['ja'] },
  { pattern: /[\uac00-\ud7af]/u, language: 'ko', family: ['ko'] },
  { pattern: /\p{Script=Han}/u, language: 'zh', family: ['zh', 'yue', 'ja'] },
  { pattern: /\p{Script=Cyrillic}/u, language: 'ru', family: ['ru', 'uk', 'be', 'bg', 'sr', 'mk', 'kk', 'ky', 'mn', 'tg'] },
  { pattern: /\p{Script=Arabic}/u, language: 'ar', family: ['ar', 'fa', 'ur', 'ps', 'ku', 'sd', 'ug'] },
  { pattern: /\p{Script=Hebrew}/u, language: 'he', family: ['he', 'yi'] },
  { pattern: /\p{Script=Greek}/u, language: 'el', family: ['el'] },
  { pattern: /\p{Script=Thai}/u, language: 'th', family: ['th'] },
  { pattern: /\p{Script=Devanagari}/u, language: 'hi', family: ['hi', 'mr', 'ne', 'sa', 'kok', 'mai'] },
];

/** Function words frequent in one Latin-script language and rare in English. */
const LATIN_WORDS: [string, string[]][] = [
  ['de', ['der', 'die', 'das', 'und', 'ist', 'nicht', 'wie', 'mit', 'für', 'welche', 'warum', 'wird', 'sind', 'auf', 'ein', 'eine', 'den', 'dem', 'über']],
  ['fr', ['le', 'la', 'les', 'des', 'est', 'et', 'une', 'du', 'pour', 'quels', 'quelles', 'pourquoi', 'comment', 'sur', 'dans', 'au', 'aux', 'sont']],
  ['es', ['el', 'los', 'las', 'del', 'es', 'y', 'una', 'por', 'para', 'qué', 'cuál', 'cuáles', 'cómo', 'con', 'en', 'son', 'sobre']],
  ['pt', ['o', 'os', 'as', 'do', 'da', 'dos', 'das', 'é', 'e', 'um', 'uma', 'para', 'quais', 'como', 'com', 'em', 'são', 'sobre', 'não']],
  ['it', ['il', 'lo', 'gli', 'della', 'delle', 'è', 'e', 'un', 'una', 'per', 'quali', 'come', 'con', 'nel', 'sono', 'sulla', 'perché']],
  ['nl', ['de', 'het', 'een', 'en', 'van', 'is', 'zijn', 'voor', 'welke', 'hoe', 'waarom', 'met', 'op', 'niet']],
  ['pl', ['i', 'w', 'na', 'jest', 'są', 'jak', 'dlaczego', 'jakie', 'się', 'nie', 'do', 'z', 'czy', 'dla']],
  ['tr', ['ve', 'bir', 'bu', 'için', 'ile', 'nedir', 'nasıl', 'neden', 'hangi', 'olan', 'mı', 'mi', 'değil']],
  ['sv', ['och', 'är', 'en', 'ett', 'som', 'för', 'hur', 'varför', 'vilka', 'med', 'på', 'inte', 'av']],
  ['id', ['dan', 'yang', 'di', 'ini', 'untuk', 'dengan', 'apa', 'bagaimana', 'mengapa', 'dari', 'adalah', 'tidak']],
  ['vi', ['và', 'của', 'là', 'có', 'những', 'các', 'như', 'thế', 'nào', 'tại', 'sao', 'không', 'được', 'cho']],
];
const ENGLISH = ['the', 'is', 'are', 'and', 'of', 'what', 'how', 'why', 'which', 'for', 'with', 'on', 'in', 'to', 'a', 'an', 'does', 'do'];

function latinLanguage(text: string): string {
  const words = text.toLowerCase().match(/[\p{L}]+/gu) ?? [];
  const count = (list: string[]) => words.filter((w) => list.includes(w)).length;
  let best = 'en';
  let bestScore = count(ENGLISH);
  for (const [language, list] of LATIN_WORDS) {
    const score = count(list);
    if (score > bestScore) [best, bestScore] = [language, score];
  }
  // Diacritics only these languages use settle a tie with English.
  if (best === 'en' && /[ßäöü]/.test(text) && bestScore <= count(LATIN_WORDS[0][1])) return 'de';
  return best;
}

export function detectLanguage(text: string): string {
  for (const script of SCRIPTS) if (script.pattern.test(text)) return script.language;
  return latinLanguage(text);
}

/**
 * The planner's language unless the question's script rules it out (e.g. "en" for a Chinese
 * question, "ru" for a Latin-script one); a language of the same script family is kept.
 */
export function reconcileLanguage(modelLanguage: string | undefined, question: string): string {
  const given = modelLanguage?.trim().toLowerCase().replace('_', '-');
  const script = SCRIPTS.find((s) => s.pattern.test(question));
  if (!given) return script ? script.language : latinLanguage(question);
  const base = given.split('-')[0];
  if (script) return script.family.includes(base) ? given : script.language;
  const nonLatin = SCRIPTS.some((s) => s.family.includes(base));
  return nonLatin ? latinLanguage(question) : given;
}

/** The session's language, or, for a session whose plan never named one, its question's (the report's title). */
export function reportLanguage(language: string | undefined, report: string): string {
  return language ?? detectLanguage(/^# (.+)$/m.exec(report)?.[1] ?? '');
}
