// Cookie and consent walls: the banner, dialog or overlay goes, the article behind it stays.
// They are removed before Readability looks at the page, because Readability appends a page's
// top-level blocks next to the article as bare paragraphs, with their names gone. Recognised by:
// - names: class or id words of consent tools and banners ("cookie-law-info-bar", "cmplz-…",
//   "onetrust-consent-sdk", "gdpr", "dsgvo", …);
// - dialogs (<dialog>, role="dialog", aria-modal) that speak of cookies or consent;
// - small anonymous blocks that say the site uses cookies and offer a button to agree.
// A consent dialog often hides the page from assistive technology while it is open
// (aria-hidden="true", inert, hidden on the page's wrapper): such a wrapper that holds most of the
// page's text is the page, and is unhidden.

const CONSENT_NAME = /(?:^|[-_\s])(?:cookies?\w*|\w*cookies?|cook|consent\w*|gdpr\w*|dsgvo\w*|cmplz\w*|onetrust\w*|ot-sdk\w*|cybot\w*|didomi\w*|usercentrics\w*|truste\w*|iubenda\w*|borlabs\w*|klaro|osano\w*|cky\w*|qc-cmp\w*|sp_message\w*|tarteaucitron\w*|privacy-?(?:banner|bar|notice|popup|overlay|modal|center|settings|wall))(?:$|[-_\s])/i;
const COOKIE_TALK = /\bcookies?\b|\bconsent\b|einwillig|datenschutzeinstellung|privacy (settings|preferences)|zustimmung|consentement|consentimiento|consenso|toestemming/i;
const USES_COOKIES =
  /\b(?:use[sd]?|using|verwende[nt]?|nutz(?:t|en)|setz(?:t|en)|einsetzen|utilis(?:e|ons|ent)|utiliza(?:mos|n)?|usiamo|utilizza|gebruik(?:t|en)|używa(?:my)?|korzysta)\b.{0,80}\bcookies?\b|\bcookies?\b.{0,80}\b(?:zustimm|einverstanden|akzeptier|accept|agree|consent|zulassen|accepter|aceptar|acconsent)/i;
const AGREE = /^(?:ok(?:ay)?|(?:i )?(?:accept|agree)(?: all(?: cookies)?)?|got it|allow(?: all)?(?: cookies)?|verstanden|einverstanden|akzeptieren|alle akzeptieren|zustimmen|alle zulassen|annehmen|accepter(?: tout)?|j'accepte|tout accepter|aceptar(?: todo)?|acepto|accetta(?: tutto)?|accetto|akkoord|zgadzam się|akceptuję|close|schlie(?:ß|ss)en|×|x)[.!]?$/i;
const MAX_SHARE = 0.4;
const MAX_ANONYMOUS_BANNER = 800;
/** A page with no more text than this, still asking to accept cookies, is only a consent wall. */
const MAX_WALL = 3_000;

/**
 * Removes consent banners and dialogs; true when what is left is still a consent wall (the page
 * holds no article until the visitor agrees).
 */
export function removeConsentWalls(doc: Document): boolean {
  const body = doc.body;
  if (!body) return false;
  const total = textLength(body);
  const removable = (el: Element) => el.tagName !== 'ARTICLE' && el.tagName !== 'MAIN' && textLength(el) <= total * MAX_SHARE;
  for (const el of Array.from(body.querySelectorAll('[class], [id], dialog, [role], [aria-modal]'))) {
    if (el.isConnected && isNamedOrDialogConsent(el) && removable(el)) el.remove();
  }
  for (const button of agreeButtons(body)) {
    if (!button.isConnected) continue;
    const banner = anonymousBanner(button);
    if (banner && removable(banner)) banner.remove();
  }
  const left = textLength(body);
  unhideThePage(body, left);
  return left <= MAX_WALL && USES_COOKIES.test(body.textContent ?? '') && agreeButtons(body).length > 0;
}

function agreeButtons(root: Element): Element[] {
  return Array.from(root.querySelectorAll('a, button, input[type="button"], input[type="submit"]')).filter((b) =>
    AGREE.test((b.textContent || b.getAttribute('value') || '').replace(/\s+/g, ' ').trim()),
  );
}

function isNamedOrDialogConsent(el: Element): boolean {
  const names = `${el.getAttribute('class') ?? ''} ${el.getAttribute('id') ?? ''}`;
  if (names.trim() && CONSENT_NAME.test(names)) return true;
  const dialog = el.tagName === 'DIALOG' || /^(dialog|alertdialog)$/i.test(el.getAttribute('role') ?? '') || el.getAttribute('aria-modal') === 'true';
  return dialog && COOKIE_TALK.test(el.textContent ?? '');
}

/** The largest block around an "OK"/"Accept" button, short enough for a banner, that says cookies are used. */
function anonymousBanner(button: Element): Element | undefined {
  let found: Element | undefined;
  let el = button.parentElement;
  for (let depth = 0; el && el.tagName !== 'BODY' && depth < 5; depth++, el = el.parentElement) {
    if (textLength(el) > MAX_ANONYMOUS_BANNER) break;
    if (USES_COOKIES.test(el.textContent ?? '')) found = el;
  }
  return found;
}

/** Hidden while a dialog is open: a wrapper with aria-hidden, inert or hidden holding most of the text. */
function unhideThePage(body: Element, total: number): void {
  if (!total) return;
  for (const el of Array.from(body.querySelectorAll('[aria-hidden="true"], [inert], [hidden]'))) {
    if (textLength(el) < total * 0.5) continue;
    el.removeAttribute('aria-hidden');
    el.removeAttribute('inert');
    el.removeAttribute('hidden');
  }
}

function textLength(node: Node): number {
  return (node.textContent ?? '').replace(/\s+/g, ' ').trim().length;
}

