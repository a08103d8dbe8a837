// Paywalled teasers: a page that shows only the opening of its article. Citing it as the article
// would pass a teaser off as the page, so the parse says so and the report tells its reader.
// The signals, none decisive alone:
// - declared: schema.org `isAccessibleForFree: false` or `article:content_tier = locked` (many
//   sites declare it and still send the whole text, to search engines and metered readers alike);
// - a prompt: "subscribe to continue reading", "Weiterlesen mit …", "pour lire la suite", … in the
//   page's visible text;
// - a cut: the text breaks off mid-sentence or with an ellipsis.
// A page is a teaser when a prompt meets a cut, or a declaration meets a cut or a text too short
// to be the article; a long text is the article whatever the page says (metered sites send it
// whole, with the prompt beside it).

const PROMPT = new RegExp(
  [
    // English
    String.raw`\b(?:subscribe|subscription|sign in|log in|register)\b.{0,60}\b(?:continue reading|keep reading|read the (?:full|rest|whole)|to read (?:this|the) (?:article|story)|unlimited access)`,
    String.raw`\b(?:continue|keep) reading\b.{0,40}\b(?:subscri|sign in|log in|register|account)`,
    String.raw`\bthis (?:article|story|content) is (?:only )?(?:available|reserved|exclusive) (?:to|for) (?:subscribers|members)`,
    String.raw`\b(?:subscribers?|members?)[- ]only (?:article|content|story)`,
    // German
    String.raw`weiterlesen mit|jetzt weiterlesen|(?:jetzt )?diesen artikel (?:weiter)?lesen|(?:artikel|beitrag|inhalt|text) ist (?:nur )?(?:für|exklusiv für) (?:abonnent|plus|mitglied)|exklusiv für (?:abonnent|plus-)|mit (?:einem |unserem |dem )?(?:abo|abonnement) (?:weiterlesen|lesen)|um (?:diesen|den) (?:artikel|beitrag) (?:vollständig |weiter )?(?:zu )?lesen|bereits abonnent`,
    // French, Spanish, Italian, Portuguese, Dutch, Polish
    String.raw`pour lire la suite|lire la suite de cet article|réservé aux abonnés|contenu réservé|abonnez-vous pour lire|déjà abonné`,
    String.raw`contenido (?:exclusivo|solo) para suscriptores|para (?:seguir|continuar) leyendo|suscr[ií]bete para (?:leer|seguir)|ya (?:eres|soy) suscriptor`,
    String.raw`(?:contenuto|articolo) riservato agli abbonati|per continuare a leggere|abbonati per leggere|sei già abbonato`,
    String.raw`(?:conteúdo|matéria) exclusiv[oa] para assinantes|para continuar lendo|assine para (?:ler|continuar)|já é assinante`,
    String.raw`alleen voor abonnees|verder lezen\? word abonnee|lees verder met`,
    String.raw`(?:tylko|wyłącznie) dla (?:prenumeratorów|subskrybentów)|czytaj dalej z (?:prenumeratą|subskrypcją)`,
  ].join('|'),
  'i',
);
const NOT_FREE = /"isAccessibleForFree"\s*:\s*"?false"?/i;
/** Below this, a page declared paywalled holds an opening, not the article. */
const MIN_ARTICLE_CHARS = 1_000;
/** Above this, the text is the article: a teaser is an opening of a few paragraphs. */
const MAX_TEASER_CHARS = 4_000;

export interface PaywallSignals {
  declared: boolean;
  prompt: boolean;
}

/** Read before Readability removes the page's scripts (where the JSON-LD is). */
export function paywallSignals(doc: Document, visibleText: string): PaywallSignals {
  const tier = doc.querySelector('meta[property="article:content_tier"], meta[name="article:content_tier"]')?.getAttribute('content') ?? '';
  const declared =
    /^locked$/i.test(tier.trim()) ||
    Array.from(doc.querySelectorAll('script[type="application/ld+json"]')).some((s) => NOT_FREE.test(s.textContent ?? ''));
  return { declared, prompt: PROMPT.test(visibleText) };
}

export function onlyTheOpening(signals: PaywallSignals, text: string): boolean {
  if ((!signals.declared && !signals.prompt) || text.length > MAX_TEASER_CHARS) return false;
  const cut = breaksOff(text);
  return (signals.prompt && cut) || (signals.declared && (cut || text.length < MIN_ARTICLE_CHARS));
}

/**
 * The text's last line of article (prompts after it set aside) ends with an ellipsis, or mid-
 * sentence on a lower-case word or a comma.
 */
export function breaksOff(text: string): boolean {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length >= 20 && !PROMPT.test(l));
  const last = lines[lines.length - 1];
  if (!last) return false;
  return /(?:\.\.\.|…)\s*["'»”“]?$/.test(last) || /[\p{Ll},]$/u.test(last);
}
