// Page furniture that survives inside the main content — navigation, share and comment widgets,
// related-article lists, author boxes, newsletter prompts — recognised by tag, ARIA role, the
// words of class and id names, and the share of the text that is links.

const FURNITURE_TAGS = new Set([
  'NAV', 'ASIDE', 'FORM', 'BUTTON', 'NOSCRIPT', 'TEMPLATE', 'SELECT', 'TEXTAREA', 'INPUT', 'DIALOG', 'MENU', 'IFRAME', 'SVG',
]);
const FURNITURE_ROLES = /^(navigation|complementary|contentinfo|menu|menubar|dialog|alertdialog|search|toolbar)$/i;

// Words of a class or id name that mark furniture wherever they stand in the name ("post-share-bar").
const FURNITURE_WORDS = wordPattern([
  'share', 'sharing', 'shares', 'social', 'sociable', 'addthis', 'shariff', 'sharedaddy',
  'comments?', 'commentlist', 'disqus', 'respond', 'replies', 'kommentare?',
  'related', 'relatedposts', 'recommended', 'recommendations?', 'more-stories',
  'newsletter', 'subscribe', 'subscription', 'signup', 'cookies?', 'consent', 'gdpr', 'paywall', 'popup', 'modal',
  'breadcrumbs?', 'pagination', 'pager', 'navbar', 'navigation', 'menu', 'sidebar', 'footer', '(?:ez-)?toc(?:-container|-wrapper|-list|-box)?$',
  'advert', 'advertisement', 'sponsor', 'sponsored', 'promo', 'affiliate', 'disclaimer',
  'author', 'authors', 'byline', 'postmeta', 'postmetadata', '(?:entry|post|article)-(?:meta|info|utility)',
  'tags', 'tagcloud', 'tag-links', 'cat-links', 'categories', 'rating', 'ratings', 'widgets', 'widget-area', 'teasers',
  'caption', 'captions', 'copyright', 'credits?', 'legend', 'button', 'buttons',
]);
// Words too common as modifiers ("section--ads", "page-wide-banner") to count anywhere but first.
const LEADING_FURNITURE_WORDS = /^(?:nav|ads?|banner|widget|teaser|meta|print|skip|bio|also|read-?more)(?:-|$)/;
// Names that describe a state or a page builder's block, not what the block is:
// "has-sidebar", "no-comments", "elementor-widget", "paywall-on".
const NEUTRAL_PREFIX = /^(?:no|non|not|has|with|without|is|show|hide|elementor|et-pb|et|wp-block|vc|fusion|tve|thrv|sqs|wpb)-/;
const STATE_SUFFIX = /-(?:on|off|active|enabled|disabled|open|closed|visible|loaded)$/;

function wordPattern(alternatives: string[]): RegExp {
  return new RegExp(`(?:^|-)(?:${alternatives.join('|')})(?:-|$)`);
}

/** A class or id token as lower-case words joined by "-": "postShare_bar" → "post-share-bar". */
function words(token: string): string {
  return token.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase().replace(/[_:.\s]+/g, '-');
}

export function looksLikeFurniture(el: Element): boolean {
  if (FURNITURE_TAGS.has(el.tagName)) return true;
  if (el.tagName === 'ARTICLE' || el.tagName === 'MAIN') return false;
  const role = el.getAttribute('role');
  if (role && FURNITURE_ROLES.test(role)) return true;
  if (el.getAttribute('aria-hidden') === 'true' || el.hasAttribute('hidden')) return true;
  const names = `${el.getAttribute('class') ?? ''} ${el.getAttribute('id') ?? ''}`.trim();
  return !!names && names.split(/\s+/).some(isFurnitureName);
}

/** One class or id token that names furniture: "post-share-bar", "adsTop"; not "has-sidebar". */
export function isFurnitureName(token: string): boolean {
  const name = words(token);
  if (NEUTRAL_PREFIX.test(name) || STATE_SUFFIX.test(name)) return false;
  return LEADING_FURNITURE_WORDS.test(name) || FURNITURE_WORDS.test(name);
}

function textLength(node: Node): number {
  return (node.textContent ?? '').replace(/\s+/g, ' ').trim().length;
}

function linkTextLength(el: Element): number {
  let n = 0;
  for (const a of Array.from(el.querySelectorAll('a'))) n += textLength(a);
  return n;
}

/**
 * Removes furniture under `root`, top-down. A candidate holding a large share of the text is kept:
 * some sites put the whole article inside a container named like furniture.
 */
export function pruneFurniture(root: Element, maxShare = 0.3): void {
  const total = textLength(root);
  const visit = (el: Element) => {
    for (const child of Array.from(el.children)) {
      if (looksLikeFurniture(child) && textLength(child) <= total * maxShare) child.remove();
      else visit(child);
    }
  };
  visit(root);
}

/**
 * Removes the page's header, footer, navigation, sidebars and forms. Some sites (ASP.NET ones)
 * wrap the whole page in a form: a form holding most of the text stays.
 */
export function pruneLayout(root: Element): void {
  const total = textLength(root);
  for (const el of Array.from(root.querySelectorAll('nav, footer, header, aside'))) el.remove();
  for (const form of Array.from(root.querySelectorAll('form'))) {
    if (form.isConnected && textLength(form) <= total * 0.5) form.remove();
  }
}

const LIST_LIKE = new Set(['UL', 'OL', 'DL', 'TABLE', 'DIV', 'SECTION', 'P']);

/** Lists and blocks that are mostly links — menus, tag clouds, "read next" lists — go. */
export function pruneLinkBlocks(root: Element, maxShare = 0.3): void {
  const total = textLength(root);
  const visit = (el: Element) => {
    for (const child of Array.from(el.children)) {
      if (LIST_LIKE.has(child.tagName) && isLinkBlock(child) && textLength(child) <= total * maxShare) child.remove();
      else visit(child);
    }
  };
  visit(root);
}

function isLinkBlock(el: Element): boolean {
  const text = textLength(el);
  if (text === 0) return false;
  const links = linkTextLength(el);
  if (links === 0) return false;
  const density = links / text;
  if (el.tagName === 'P') return text < 200 && text - links <= 25;
  const linkCount = el.querySelectorAll('a').length;
  if (el.tagName === 'DIV' || el.tagName === 'SECTION') return linkCount >= 3 && density > 0.7 && text < 2_000;
  return linkCount >= 2 && density > 0.7;
}

const HEADING = /^H[1-6]$/;

/** A heading left with nothing after it (its related-links list removed) is furniture too. */
export function pruneOrphanHeadings(root: Element): void {
  for (const heading of Array.from(root.querySelectorAll('h1,h2,h3,h4,h5,h6')).reverse()) {
    if (textLength(heading) > 80) continue;
    const next = nextMeaningful(heading, root);
    if (!next || (HEADING.test(next.tagName) && next.tagName <= heading.tagName)) heading.remove();
  }
}

/** The next element after `el` in document order that has text, climbing out of containers. */
function nextMeaningful(el: Element, root: Element): Element | undefined {
  for (let node: Element | null = el; node && node !== root; node = node.parentElement) {
    for (let sibling = node.nextElementSibling; sibling; sibling = sibling.nextElementSibling) {
      if (textLength(sibling) > 0) return firstWithText(sibling);
    }
  }
  return undefined;
}

function firstWithText(el: Element): Element {
  for (const child of Array.from(el.children)) if (textLength(child) > 0) return firstWithText(child);
  return el;
}
