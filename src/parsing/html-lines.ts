// Lines of extracted text that are page furniture, not the article: dates and labels alone on a
// line ("Comments", "Quelle: dpa", "Kategorie: News"), picture captions that end in their credit,
// figure captions set as paragraphs, lead-ins to other articles ("Lesen Sie auch", "Related") and
// calls to subscribe, follow or install the site's app. Each rule is measured on the 990 pages of `npm run bench:extract`.

const FURNITURE_WORDS =
  'kommentar\\w*|comments?|anzeige|advertisement|newsletter|teilen|share|ähnliche beiträge|related posts?|auch interessant|weiterlesen|read more|mehr zum thema|schlagwörter|impressum|datenschutz|cookies?|shutterstock|getty ?images|istock|beitragsbild|lade weitere|war (?:der|dieser) artikel|abonnier\\w*|subscribe';
/** Labels that make a short line furniture wherever they stand in it ("Foto: dpa", "Roman Prymula, photo:"). */
const LABELS_ANYWHERE = 'tags?|(?:foto|bild|photo|image|quelle)s?|credits?|crédits?(?: photos?)?';
/** Labels that do so at the line's start ("Source:", "Kategorie:"), where mid-line they may be text. */
const LABELS_AT_START =
  'sources?|fuentes?|fonte|źródło|quellenangaben?|kategorien?|category|categories|categoría|catégorie|publikacja|originalartikel|bildquelle|titelbild|abbildung(?: \\d+)?|abb\\.(?: \\d+)?';

/** A short line (at most 60 characters) that is a date, a byline stamp or a label. */
const SHORT_FURNITURE = new RegExp(
  [
    String.raw`^\d{1,2}[.:/]\d{1,2}(?:[.:/]\d{2,4})?(?: ?(?:am|pm|uhr))?$`,
    String.raw`^(?:posted|published|veröffentlicht|erstellt|aktualisiert|updated)\b`,
    String.raw`\b(?:${FURNITURE_WORDS})\b`,
    String.raw`\b(?:${LABELS_ANYWHERE})\s?:`,
    String.raw`^(?:${LABELS_AT_START})\s?:`,
    '©',
  ].join('|'),
  'i',
);

/** A caption: a line that ends in its picture's credit ("… (Foto: Getty)", "… © AFP / X", "Photograph by …"). */
const ENDS_IN_CREDIT =
  /(?:©|\((?:foto|photo|bild|credit|image|quelle|source)s?\s*:|(?:^|[\s|(])(?:photo|foto|photograph|image|picture|credit|crédits? photos?|bildquelle|titelbild|image illustrative)s?\s*(?:by\b|:))[^.!?]{0,80}\)?\s*$/i;

/** A figure's caption set as a paragraph ("Abbildung 4: …", "Figure 2. …"): captions go, as <figcaption> does. */
const FIGURE_CAPTION = /^(?:abbildung|abb\.|figure|fig\.|grafik|grafico|gráfico|figura|illustration)\s*\d*\s*[:.]\s/i;

// Lead-ins to links elsewhere ("Lesen Sie auch: …", "À lire aussi", "Related coverage") in the
// languages most read here; the linked title after them can be long.
const READ_ALSO_LINE =
  /^(?:lesen sie (?:auch|hier|mehr)|lies auch|das könnte (?:sie|dich) auch interessieren|schon gelesen|auch lesenswert|mehr (?:zum thema|dazu)|weitere (?:artikel|beiträge|themen)|(?:à |a )?lire aussi|voir aussi|czytaj (?:też|także|również|więcej)|zobacz (?:też|także|również)|lee (?:también|más)|leer también|puedes ver|te puede interesar|mira también|see also|read (?:also|more|next)|related(?: articles?| stories| coverage)?|you (?:may|might) also like|more from|follow us|folgen sie uns|folge uns)(?=[\s:.,!?»>-]|$)/i;
// Calls to subscribe or follow, which close many articles.
const CALL_TO_ACTION = /\b(?:subscrib\w*|subscription|newsletter|sign(?:ing)? up|abonn\w*|follow us|folgen sie uns|folge uns|suscr[ií]b\w*|inscr[ií]b\w*)/i;
// Calls to install the site's app or join its channels.
const APP_OR_CHANNEL =
  /\b(?:download (?:the|our)\b.{0,40}\bapps?\b|apps? for (?:ios|android)|straight to your (?:phone|inbox)|follow (?:us|the \w+|@)\b.{0,40}\b(?:twitter|instagram|facebook|x|linkedin|tiktok)|(?:canal|kanal|channel) (?:de|auf|on) (?:youtube|telegram|whatsapp)|síguenos|verpasse keine|nichts mehr verpassen|never miss)/i;

/** A line (trimmed) that is page furniture rather than the article's text. */
export function isFurnitureLine(line: string): boolean {
  const n = line.length;
  return (
    (n <= 60 && SHORT_FURNITURE.test(line)) ||
    (n <= 200 && READ_ALSO_LINE.test(line)) ||
    (n <= 150 && CALL_TO_ACTION.test(line)) ||
    (n < 200 && APP_OR_CHANNEL.test(line)) ||
    (n < 250 && (ENDS_IN_CREDIT.test(line) || FIGURE_CAPTION.test(line)))
  );
}

/** Short lines that are page furniture (dates, "Comments", "Share", "Related posts", captions) go. */
export function dropBoilerplateLines(text: string): string {
  return text
    .split('\n')
    .filter((line) => !isFurnitureLine(line.trim()))
    .join('\n');
}

const LEAF_BLOCKS = 'p, div, li, h1, h2, h3, h4, h5, h6, dt, dd, figcaption';
const BLOCKS_INSIDE = 'p, div, li, ul, ol, h1, h2, h3, h4, h5, h6, table, section, article, blockquote, pre, figure, dl, br';

/**
 * The same rules on the DOM, block by block, so the markdown the model reads loses the furniture
 * the text loses.
 */
export function pruneFurnitureLines(root: Element): void {
  for (const el of Array.from(root.querySelectorAll(LEAF_BLOCKS))) {
    if (el.querySelector(BLOCKS_INSIDE)) continue;
    const text = (el.textContent ?? '').replace(/\s+/g, ' ').trim();
    if (text && isFurnitureLine(text)) el.remove();
  }
}
