// HTML extraction on the shapes real pages come in: broken skeletons, consent walls, paywalled
// teasers and legacy encodings. Each case is a page as servers send it; the assertions are what a
// reader of the extracted text would notice.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDocument } from '../src/parsing';
import { sharedData } from './harness/shared-data';

const paragraphs = (topic: string, n = 4) =>
  Array.from({ length: n }, (_, i) => `<p>${topic} paragraph ${i + 1} explains the findings in detail, with the numbers the study reported and what they mean for readers.</p>`).join('\n');

async function html(page: string, contentType = 'text/html; charset=utf-8') {
  return parseDocument(Buffer.from(page), contentType, 'https://news.example/story');
}

describe('HTML skeletons a browser would repair', () => {
  it('reads the article of a page that opens with a PHP warning before <html>', async () => {
    const doc = await html(`<br />\n<b>Warning</b>: mysql_get_server_info(): Access denied in <b>/www/plugin.php</b> on line <b>299</b><br />
<!DOCTYPE html><html lang="de"><head><title>Relaunch</title></head><body><article>${paragraphs('Relaunch')}</article></body></html>`);
    expect(doc.title).toBe('Relaunch');
    expect(doc.text).toContain('Relaunch paragraph 4 explains');
    expect(doc.text).not.toContain('mysql_get_server_info');
  });

  it('reads a page with a script between </head> and <body>', async () => {
    const doc = await html(`<!DOCTYPE html><html><head><title>Election</title></head>
<script>window.dataLayer = [];</script><body><main>${paragraphs('Election')}</main></body></html>`);
    expect(doc.text).toContain('Election paragraph 1 explains');
    expect(doc.text).not.toContain('dataLayer');
  });

  it('reads pages without <head> or <body> tags, and <html> nested by IE conditional comments', async () => {
    const noBody = await html(`<!DOCTYPE html><html><head><title>No body</title></head><div class="content">${paragraphs('Bodiless')}</div></html>`);
    expect(noBody.text).toContain('Bodiless paragraph 3 explains');
    const noHead = await html(`<!DOCTYPE html><meta charset="utf-8"><title>No head</title><body><article>${paragraphs('Headless')}</article></body>`);
    expect(noHead.title).toBe('No head');
    expect(noHead.text).toContain('Headless paragraph 2 explains');
    const ie = await html(`<!DOCTYPE html><!--[if lt IE 7 ]><!--><html class="ie6"><!--<![endif]--><!--[if IE 9 ]><!--><html class="ie9"><!--<![endif]-->
<html lang="fr"><head><title>Éléphants</title></head><body><article>${paragraphs('Éléphants')}</article></body></html>`);
    expect(ie.title).toBe('Éléphants');
    expect(ie.text).toContain('Éléphants paragraph 4 explains');
  });
});

describe('an article body the page renders from a template', () => {
  it("reads the article Blogger ships as an HTML template in the post's articleBody, not a widget's template", async () => {
    const doc = await html(`<!doctype html><html><head><title>Security Blog</title></head><body><div class="post" itemscope itemtype="http://schema.org/BlogPosting">
<h2 class="title" itemprop="name">Enhanced protection</h2><div class="post-body"><div class="post-content" itemprop="articleBody">
<script type="text/template"><span class="byline-author">Posted by the Safe Browsing team</span>
${paragraphs('Protection', 4)}</script><noscript>${paragraphs('Protection', 1)}</noscript></div></div></div>
<div class="widget" itemprop="articleBody"><script type="text/template"><p>{{comment.author}} wrote {{comment.body}}</p></script></div></body></html>`);
    expect(doc.text).toContain('Protection paragraph 4 explains');
    expect(doc.text).not.toContain('{{comment');
  });
});

describe('text as a reader sees it', () => {
  it('drops furigana readings, soft hyphens and zero-width spaces, and composes characters (NFC)', async () => {
    const doc = await html(`<!doctype html><html lang="ja"><head><title>ニュース</title></head><body><article>
<p><ruby>子<rt>こ</rt></ruby>どもへの<ruby>虐待<rt>ぎゃくたい</rt></ruby>をなくすための<ruby>法律<rt>ほうりつ</rt></ruby>ができて、親が子どもを教育するために、たたいたり蹴ったりすることは禁止されました。</p>
<p>Schon im Mit&shy;tel&shy;al&shy;ter war der St. Mag&shy;da&shy;le&shy;ner das Aus&shy;hän&shy;ge&shy;schild der Süd&shy;ti&shy;ro&shy;ler Wein&shy;wirt&shy;schaft, lo&#8203;b&#8203;ten die Chronisten.</p>
<p>কুষ্টি\u09dfা-১ (দৌলতপুর) আসনের সংসদ সদস্য এবং আরও অনেক কথা যা এখানে লেখা আছে পাঠকের জন্য।</p>
</article></body></html>`);
    expect(doc.text).toContain('子どもへの虐待をなくすための法律ができて');
    expect(doc.text).not.toContain('ぎゃくたい');
    expect(doc.text).toContain('Schon im Mittelalter war der St. Magdalener das Aushängeschild der Südtiroler Weinwirtschaft, lobten');
    expect(doc.text).toContain('কুষ্টিয়া-১'.normalize('NFC'));
    expect(doc.markdown).toContain('Südtiroler Weinwirtschaft');
  });
});

describe("an article's lead", () => {
  it('keeps the lead that sits in the article header, apart from the body, and not the teasers of other articles', async () => {
    const teaser = (n: number) => `<div class="teaser"><h3><a href="/other-${n}">Other story ${n}</a></h3><p class="teaser-text">A teaser for another story number ${n}, which readers of this article did not come for today.</p></div>`;
    const doc = await html(`<!doctype html><html lang="de"><head><title>Wahl</title></head><body>
<header class="site-header"><p class="site-description">Nachrichten aus der Region, jeden Tag neu für Sie zusammengestellt.</p></header>
<article class="post"><header class="entry-header"><h1 class="entry-title">Die Wahl</h1><span class="byline">Von Erika Muster</span>
<div class="entry-excerpt"><p>Die Lokalwahlen endeten mit einem großen Sieg der Opposition und dem Rücktritt des Premierministers am selben Abend.</p></div></header>
<div class="entry-content">${paragraphs('Wahl', 5)}</div></article>
<div class="more">${[1, 2, 3].map(teaser).join('')}</div></body></html>`);
    expect(doc.text.indexOf('Die Lokalwahlen endeten mit einem großen Sieg')).toBeGreaterThanOrEqual(0);
    expect(doc.text.indexOf('Die Lokalwahlen endeten')).toBeLessThan(doc.text.indexOf('Wahl paragraph 1'));
    expect(doc.markdown).toContain('Die Lokalwahlen endeten');
    expect(doc.text).not.toContain('A teaser for another story');
    expect(doc.text).not.toContain('Nachrichten aus der Region');
  });
});

describe('consent and cookie walls', () => {
  const article = `<article><h1>Harbour plans</h1>${paragraphs('Harbour', 5)}</article>`;
  const banner = 'We use cookies to personalise content and ads and to analyse our traffic. By clicking Accept all you agree to the storing of cookies on your device.';

  it('drops a named cookie banner that Readability would append to the article', async () => {
    const doc = await html(`<!doctype html><html><head><title>Harbour</title></head><body><div id="page">${article}</div>
<div id="cookie-law-info-bar"><span>${banner} <a href="#" class="cli-plugin-button">Accept all</a> <a href="/privacy">Read more</a></span></div></body></html>`);
    expect(doc.text).toContain('Harbour paragraph 5 explains');
    expect(doc.text).not.toContain('We use cookies');
  });

  it('reads the article behind a consent dialog that hides the page (aria-hidden, inert)', async () => {
    const doc = await html(`<!doctype html><html><head><title>Harbour</title></head><body>
<div class="wrapper" aria-hidden="true" inert>${article}</div>
<div class="overlay"><div role="dialog" aria-modal="true" aria-label="Your privacy"><h2>Your privacy</h2><p>${banner}</p>
<p>Some of our partners process your personal data on the basis of legitimate interest. You can object to such processing and change your choices at any time in the privacy settings.</p>
<button>Accept all</button><button>Reject all</button><button>Manage settings</button></div></div></body></html>`);
    expect(doc.text).toContain('Harbour paragraph 1 explains');
    expect(doc.text).toContain('Harbour paragraph 5 explains');
    expect(doc.text).not.toContain('partners process your personal data');
    expect(doc.text).not.toContain('Reject all');
  });

  it('drops an anonymous banner that says the site uses cookies and offers OK, but keeps an article about cookies', async () => {
    const doc = await html(`<!doctype html><html><head><title>Harbour</title></head><body>${article}
<div id="botclick">Wir verwenden Cookies, die unser Angebot nutzerfreundlicher machen. Durch die Nutzung unserer Dienste stimmen Sie der Verwendung von Cookies zu. <a href="/datenschutz">Weitere Informationen</a><a class="ok">OK</a></div></body></html>`);
    expect(doc.text).toContain('Harbour paragraph 3 explains');
    expect(doc.text).not.toContain('Wir verwenden Cookies');
    const about = await html(`<!doctype html><html><head><title>Cookie law</title></head><body><article><h1>The cookie law, explained</h1>
<p>Since 2011 websites that use cookies must ask visitors to agree before storing them, and regulators have fined sites whose banners made refusing harder than accepting.</p>
${paragraphs('Cookie law', 3)}<p>Courts found that a pre-ticked box is not consent: users must agree to cookies actively, as the judges wrote in their ruling.</p></article></body></html>`);
    expect(about.text).toContain('websites that use cookies must ask visitors to agree');
    expect(about.text).toContain('users must agree to cookies actively');
  });

  it('refuses a page that is only a consent wall, saying so, instead of reading the banner as the page', async () => {
    const wall = html(`<!doctype html><html><head><title>Before you continue</title></head><body><div class="consent-page"><h1>Before you continue</h1>
<p>${banner}</p><p>We also use cookies to deliver and maintain services, track outages and protect against spam, fraud and abuse.</p>
<form><button>Reject all</button><button>Accept all</button></form></div></body></html>`);
    await expect(wall).rejects.toThrow('the page shows only a cookie-consent wall, not its content');
  });
});

describe('paywalled teasers', () => {
  const notFree = `<script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle","headline":"Harbour","isAccessibleForFree":false,"hasPart":{"@type":"WebPageElement","isAccessibleForFree":false,"cssSelector":".paywall"}}</script>`;

  it('marks a page that shows only the opening of its article, declared and cut off before a subscribe prompt', async () => {
    const doc = await html(`<!doctype html><html><head><title>Harbour</title>${notFree}</head><body><article><h1>Harbour plans</h1>
<p>The city council approved the harbour plans on Tuesday after a debate that lasted until the early hours of the morning.</p>
<p>Opponents had argued that the new quay would cost twice what the planners promised, and that the fishermen who…</p>
<div class="paywall-prompt"><h3>Subscribe to continue reading</h3><p>Get unlimited access for 1 € in the first month.</p><a href="/login">Log in</a></div></article></body></html>`);
    expect(doc.text).toContain('The city council approved the harbour plans');
    expect(doc.meta?.teaser).toBe(true);
  });

  it('marks a teaser by its prompt and its cut alone, in the languages of the sites that use them', async () => {
    const doc = await html(`<!doctype html><html lang="de"><head><title>Wohnungssuche</title></head><body><article><h1>Viele Studierende suchen noch</h1>
<p>Eine Woche vor Semesterbeginn haben viele Studierende in Freiburg noch kein Zimmer. 200 Bewerbungen habe sie bestimmt schon verschickt, schätzt sie. "Das ist echt ...</p>
<div class="offer"><p>Jetzt weiterlesen mit BZ-Plus: alle Artikel für 4 Wochen kostenlos testen.</p><p>Bereits Abonnent? Hier anmelden.</p></div></article></body></html>`);
    expect(doc.meta?.teaser).toBe(true);
  });

  it('does not mark a whole article: a metered page declared not free, nor one that closes with a newsletter offer', async () => {
    const metered = await html(`<!doctype html><html><head><title>Harbour</title>${notFree}</head><body><article><h1>Harbour plans</h1>
${paragraphs('Harbour', 30)}<p>Subscribe to continue reading our coverage of the city, with unlimited access to every story.</p></article></body></html>`);
    expect(metered.text).toContain('Harbour paragraph 30 explains');
    expect(metered.meta?.teaser).toBeUndefined();
    const newsletter = await html(`<!doctype html><html><head><title>Harbour</title></head><body><article><h1>Harbour plans</h1>
${paragraphs('Harbour', 3)}<div class="newsletter">Sign up to our newsletter to keep reading the best of the week, every Friday in your inbox.</div></article></body></html>`);
    expect(newsletter.meta?.teaser).toBeUndefined();
  });

  const shared = sharedData('extraction-trafilatura');
  it.skipIf(!shared)('tells the evaluation pages that hold only a teaser from those that hold the article (shared data)', async () => {
    const data = JSON.parse(readFileSync(path.join(shared!, 'evaldata.json'), 'utf8')) as Record<string, { file: string }>;
    const teaser = async (name: string) => {
      const [url, entry] = Object.entries(data).find(([, e]) => e.file === name)!;
      const file = ['eval', 'cache'].map((d) => path.join(shared!, d, entry.file)).find((f) => existsSync(f))!;
      return (await parseDocument(readFileSync(file), 'text/html', url)).meta?.teaser ?? false;
    };
    // A BZ-Plus opening that breaks off with "Das ist echt ...", and an AOC essay that ends at "create your account".
    expect(await teaser('badische-zeitung.de-Wohnungssuche.html')).toBe(true);
    expect(await teaser('aoc.media.archaisme.html')).toBe(true);
    // Declared not free, sent whole.
    expect(await teaser('wired.com.burn.html')).toBe(false);
    expect(await teaser('die-tagespost.de.Demut.html')).toBe(false);
  });
});

describe('furniture lines inside the article', () => {
  it('drops captions that end in their credit, labels alone on a line and calls to install the app, and keeps the text around them', async () => {
    const doc = await html(`<!doctype html><html><head><title>Harbour</title></head><body><article><h1>Harbour plans</h1>
${paragraphs('Harbour', 2)}
<p>The new quay seen from the lighthouse at dawn. (Foto: Getty)</p>
<p>Marco Rossi, harbour master. © AFP / MARCO BERTORELLO</p>
<p>Photograph by Ed Marshall, Harbour Restoration Programme</p>
<p>Abbildung 4: Der Querschnitt des neuen Kais mit den Pfählen, wie ihn die Planer im Frühjahr vorgelegt haben.</p>
${paragraphs('Quay', 2)}
<p>Kategorie: News</p><p>Quelle: Landesregierung</p><p>© 2020 Harbour Media Inc. All Rights Reserved.</p>
<p>For the latest stories and breaking news updates download the Harbour News apps for iOS and Android.</p>
<p>The primary funding source: the city's port authority, which pays two thirds of the cost.</p>
</article></body></html>`);
    expect(doc.text).toContain('Harbour paragraph 2 explains');
    expect(doc.text).toContain('Quay paragraph 1 explains');
    // The markdown the model reads loses them too.
    for (const furniture of ['(Foto: Getty)', 'MARCO BERTORELLO', 'Photograph by', 'Abbildung 4', 'Kategorie: News', 'Quelle: Landesregierung', 'All Rights Reserved', 'download the Harbour News apps']) {
      expect(doc.text).not.toContain(furniture);
      expect(doc.markdown).not.toContain(furniture);
    }
    expect(doc.markdown).toContain('Quay paragraph 2 explains');
    expect(doc.text).toContain('The primary funding source: the city');
  });
});
