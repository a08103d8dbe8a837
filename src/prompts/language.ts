// The question's language when the planner did not say: decided by its script, which is enough
// to tell Chinese, Japanese, Korean, Cyrillic, Arabic, Hebrew, Greek, Thai and Devanagari apart
// from Latin-script text (reported as "en" unless the planner says otherwise).

const SCRIPTS: [RegExp, string][] = [
  [/[\u3040-\u30ff]/u, 'ja'],
  [/[\uac00-\ud7af]/u, 'ko'],
  [/\p{Script=Han}/u, 'zh'],
  [/\p{Script=Cyrillic}/u, 'ru'],
  [/\p{Script=Arabic}/u, 'ar'],
  [/\p{Script=Hebrew}/u, 'he'],
  [/\p{Script=Greek}/u, 'el'],
  [/\p{Script=Thai}/u, 'th'],
  [/\p{Script=Devanagari}/u, 'hi'],
];

export function detectLanguage(text: string): string {
  for (const [script, language] of SCRIPTS) if (script.test(text)) return language;
  return 'en';
}

/** A script-based language wins over a model's guess that contradicts the script (e.g. "en" for Chinese). */
export function reconcileLanguage(modelLanguage: string | undefined, question: string): string {
  const detected = detectLanguage(question);
  const given = modelLanguage?.trim().toLowerCase();
  if (!given) return detected;
  if (detected !== 'en' && !given.startsWith(detected)) return detected;
  return given;
}
