// Answers in each search service's real wire format (field names, nesting, quirks), for the fakes in
// search-fakes.ts. Content is fixed so tests can assert exact mapped values.

export function tavilyResults(query: string, maxResults: number) {
  const results = [
    {
      url: 'https://www.nature.com/articles/d41586-024-03933-5',
      title: 'Quantum error correction below the surface-code threshold',
      content: '  Google’s Willow chip showed logical error rates falling as the code distance grew.  \n',
      score: 0.91,
      published_date: 'Mon, 09 Dec 2024 16:00:00 GMT',
      raw_content: null,
      favicon: 'https://www.nature.com/favicon.ico',
    },
    {
      url: 'ftp://files.example.org/qec-notes.pdf',
      title: 'QEC lecture notes (FTP mirror)',
      content: 'Mirror of the lecture notes.',
      score: 0.88,
      raw_content: null,
    },
    {
      url: 'https://en.wikipedia.org/wiki/Quantum_error_correction',
      title: 'Quantum error correction - Wikipedia',
      content: 'Quantum error correction (QEC) is a set of techniques used in quantum computing to protect quantum information from errors.',
      score: 0.83,
      raw_content: null,
    },
  ];
  return {
    query,
    follow_up_questions: null,
    answer: null,
    images: [],
    results: results.slice(0, maxResults),
    response_time: 1.09,
    request_id: '3f2a1c0e-7d4b-4e59-9a51-5f7f0b1c2d3e',
  };
}

export function braveResults(query: string, count: number) {
  const results = [
    {
      title: 'Rust vs. Go in 2025: Which One Should You Learn?',
      url: 'https://blog.example.dev/rust-vs-go-2025',
      is_source_local: false,
      is_source_both: false,
      description: 'Both languages are fast, but <strong>Rust</strong> trades a steeper learning curve for memory safety without a garbage collector. Here&#x27;s how they compare &amp; when to pick each.',
      page_age: '2025-01-14T09:30:00',
      profile: { name: 'Example Dev', url: 'https://blog.example.dev/rust-vs-go-2025', long_name: 'blog.example.dev', img: 'https://imgs.search.brave.com/x.png' },
      language: 'en',
      family_friendly: true,
      type: 'search_result',
      subtype: 'generic',
      is_live: false,
      meta_url: { scheme: 'https', netloc: 'blog.example.dev', hostname: 'blog.example.dev', favicon: 'https://imgs.search.brave.com/f.png', path: '› rust-vs-go-2025' },
      age: 'January 14, 2025',
    },
    {
      title: 'The Rust Programming Language',
      url: 'https://doc.rust-lang.org/book/',
      is_source_local: false,
      is_source_both: false,
      description: 'An introductory book about Rust, written by the Rust team.',
      profile: { name: 'Rust', url: 'https://doc.rust-lang.org/book/', long_name: 'doc.rust-lang.org', img: 'https://imgs.search.brave.com/r.png' },
      language: 'en',
      family_friendly: true,
      type: 'search_result',
      subtype: 'generic',
      is_live: false,
      meta_url: { scheme: 'https', netloc: 'doc.rust-lang.org', hostname: 'doc.rust-lang.org', favicon: 'https://imgs.search.brave.com/g.png', path: '› book' },
      age: '3 days ago',
    },
  ];
  return {
    type: 'search',
    query: { original: query, show_strict_warning: false, is_navigational: false, spellcheck_off: true, country: 'us', more_results_available: true },
    mixed: { type: 'mixed', main: [{ type: 'web', index: 0, all: false }], top: [], side: [] },
    web: { type: 'search', results: results.slice(0, count), family_friendly: true },
  };
}

export function braveError(status: number, code: string, detail: string, meta: Record<string, unknown> = {}) {
  return { type: 'ErrorResponse', error: { id: 'c9a7e3f0-51b2-4bd8-9d1e-8e2b6f0a4c11', status, code, detail, meta }, time: 1736850000 };
}

export function exaResults(numResults: number, contents: { highlights?: unknown; text?: unknown } | undefined) {
  const base = [
    {
      id: 'https://arxiv.org/abs/2307.06435',
      title: 'A Comprehensive Overview of Large Language Models',
      url: 'https://arxiv.org/abs/2307.06435',
      publishedDate: '2023-07-12T00:00:00.000Z',
      author: 'Humza Naveed',
      score: 0.37,
      image: 'https://arxiv.org/static/browse/0.3.4/images/arxiv-logo-fb.png',
      favicon: 'https://arxiv.org/static/browse/0.3.4/images/icons/favicon-32x32.png',
      highlights: ['Large Language Models (LLMs) have recently demonstrated remarkable capabilities in natural language processing tasks. ', 'This article provides an overview of the existing literature.'],
      highlightScores: [0.61, 0.42],
      text: 'Abstract: Large Language Models (LLMs) have recently demonstrated remarkable capabilities…',
    },
    {
      id: 'https://lilianweng.github.io/posts/2023-06-23-agent/',
      title: 'LLM Powered Autonomous Agents',
      url: 'https://lilianweng.github.io/posts/2023-06-23-agent/',
      publishedDate: null,
      author: null,
      score: 0.33,
      highlights: ['Building agents with LLM as its core controller is a cool concept.'],
      highlightScores: [0.55],
      text: 'Building agents with LLM (large language model) as its core controller is a cool concept.',
    },
  ];
  const results = base.slice(0, numResults).map(({ highlights, highlightScores, text, ...rest }) => ({
    ...rest,
    ...(contents?.highlights ? { highlights, highlightScores } : {}),
    ...(contents?.text ? { text } : {}),
  }));
  return { requestId: 'b5947044c4b78efa9552a7c89b306d95', resolvedSearchType: 'neural', searchType: 'auto', results, costDollars: { total: 0.006 } };
}

/** DuckDuckGo's HTML results page: an ad first, then organic results behind /l/?uddg= redirects. */
export function duckduckgoPage(query: string): string {
  const escaped = query.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
  const organic = (target: string, title: string, snippet: string, shown: string) => `
  <div class="result results_links results_links_deep web-result ">
    <div class="links_main links_deep result__body">
      <h2 class="result__title">
        <a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=${encodeURIComponent(target)}&amp;rut=8e1f0a2b3c4d5e6f">${title}</a>
      </h2>
      <div class="result__extras"><div class="result__extras__url">
        <span class="result__icon"><a rel="nofollow" href="//duckduckgo.com/l/?uddg=${encodeURIComponent(target)}&amp;rut=8e1f0a2b3c4d5e6f"><img class="result__icon__img" width="16" height="16" alt="" src="//external-content.duckduckgo.com/ip3/x.ico" name="i15" /></a></span>
        <a class="result__url" href="//duckduckgo.com/l/?uddg=${encodeURIComponent(target)}&amp;rut=8e1f0a2b3c4d5e6f">${shown}</a>
      </div></div>
      <a class="result__snippet" href="//duckduckgo.com/l/?uddg=${encodeURIComponent(target)}&amp;rut=8e1f0a2b3c4d5e6f">${snippet}</a>
      <div class="clear"></div>
    </div>
  </div>`;
  return `<!DOCTYPE html PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN" "http://www.w3.org/TR/html4/loose.dtd">
<html><head><meta http-equiv="content-type" content="text/html; charset=UTF-8"><title>${escaped} at DuckDuckGo</title></head>
<body class="body--html">
<div id="links" class="results">
  <div class="result results_links results_links_deep result--ad result--ad--small">
    <div class="links_main links_deep result__body">
      <h2 class="result__title"><a rel="nofollow" class="result__a" href="https://duckduckgo.com/y.js?ad_domain=sourdough.shop&amp;ad_provider=bingv7aa&amp;ad_type=txad&amp;u3=https%3A%2F%2Fwww.bing.com%2Faclick%3Fld%3Dabc">Buy Sourdough Starter - Free Shipping</a></h2>
      <a class="result__snippet" href="https://duckduckgo.com/y.js?ad_domain=sourdough.shop">Live starter culture, shipped today.</a>
      <div class="clear"></div>
    </div>
  </div>
${organic('https://www.kingarthurbaking.com/recipes/sourdough-starter-recipe', 'Sourdough Starter Recipe | King Arthur Baking', 'Make your own <b>sourdough</b> starter with flour &amp; water:\n      feed it daily for 5 days.', 'www.kingarthurbaking.com/recipes/sourdough-starter-recipe')}
${organic('https://en.wikipedia.org/wiki/Sourdough?lang=en&x=1', 'Sourdough - Wikipedia', 'Sourdough is bread made by the fermentation of dough using wild lactobacillaceae and yeast.', 'en.wikipedia.org/wiki/Sourdough')}
${organic('javascript:alert(1)', 'Suspicious link', 'Should never come out of the provider.', 'javascript')}
${organic('https://www.theperfectloaf.com/beginners-sourdough-bread/', 'Beginner’s Sourdough Bread', 'A simple, reliable recipe for your first loaf.', 'www.theperfectloaf.com')}
  <div class="nav-link"><form action="/html/" method="post"><input type="submit" class="btn btn--alt" value="Next" /><input type="hidden" name="q" value="${escaped}" /><input type="hidden" name="s" value="10" /></form></div>
</div>
</body></html>`;
}

export const DUCKDUCKGO_NO_RESULTS = `<!DOCTYPE html><html><body class="body--html"><div id="links" class="results"><div class="no-results">No results.</div></div></body></html>`;

export const DUCKDUCKGO_BOT_CHALLENGE = `<!DOCTYPE html><html><body><div class="anomaly-modal__title">Unfortunately, bots use DuckDuckGo too.</div>
<div class="anomaly-modal__description">Please complete the following challenge to confirm this search was made by a human.</div>
<form id="challenge-form" action="//duckduckgo.com/anomaly.js?sv=html&amp;cc=botnet" method="POST"></form></body></html>`;

const ATOM_OPEN = `<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" xmlns:arxiv="http://arxiv.org/schemas/atom">`;

export function arxivFeed(searchQuery: string, maxResults: number): string {
  const entries = [
    `<entry>
    <id>http://arxiv.org/abs/1706.03762v7</id>
    <updated>2023-08-02T00:41:18Z</updated>
    <published>2017-06-12T17:57:34Z</published>
    <title>Attention Is All
  You Need</title>
    <summary>  The dominant sequence transduction models are based on complex recurrent or
convolutional neural networks in an encoder-decoder configuration.
</summary>
    <author><name>Ashish Vaswani</name></author>
    <author><name>Noam Shazeer</name><arxiv:affiliation>Google Brain</arxiv:affiliation></author>
    <author><name>Niki Parmar</name></author>
    <arxiv:doi>10.48550/arXiv.1706.03762</arxiv:doi>
    <link title="doi" href="http://dx.doi.org/10.48550/arXiv.1706.03762" rel="related"/>
    <arxiv:comment>15 pages, 5 figures</arxiv:comment>
    <link href="http://arxiv.org/abs/1706.03762v7" rel="alternate" type="text/html"/>
    <link title="pdf" href="http://arxiv.org/pdf/1706.03762v7" rel="related" type="application/pdf"/>
    <arxiv:primary_category term="cs.CL" scheme="http://arxiv.org/schemas/atom"/>
    <category term="cs.CL" scheme="http://arxiv.org/schemas/atom"/>
    <category term="cs.LG" scheme="http://arxiv.org/schemas/atom"/>
  </entry>`,
    `<entry>
    <id>http://arxiv.org/abs/2005.14165v4</id>
    <updated>2020-07-22T19:47:17Z</updated>
    <published>2020-05-28T17:29:03Z</published>
    <title>Language Models are Few-Shot Learners</title>
    <summary>Recent work has demonstrated substantial gains on many NLP tasks.</summary>
    <author><name>Tom B. Brown</name></author>
    <link href="http://arxiv.org/abs/2005.14165v4" rel="alternate" type="text/html"/>
    <link title="pdf" href="http://arxiv.org/pdf/2005.14165v4" rel="related" type="application/pdf"/>
    <arxiv:primary_category term="cs.CL" scheme="http://arxiv.org/schemas/atom"/>
  </entry>`,
  ].slice(0, maxResults);
  return `${ATOM_OPEN}
  <link href="http://arxiv.org/api/query?search_query%3D${encodeURIComponent(searchQuery)}%26id_list%3D%26start%3D0%26max_results%3D${maxResults}" rel="self" type="application/atom+xml"/>
  <title type="html">ArXiv Query: search_query=${searchQuery.replace(/&/g, '&amp;').replace(/</g, '&lt;')}&amp;id_list=&amp;start=0&amp;max_results=${maxResults}</title>
  <id>http://arxiv.org/api/Jt0bHu3hEDQ1d0yvDtL9cT9G2Wc</id>
  <updated>2025-01-14T00:00:00-05:00</updated>
  <opensearch:totalResults xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">184213</opensearch:totalResults>
  <opensearch:startIndex xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">0</opensearch:startIndex>
  <opensearch:itemsPerPage xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">${maxResults}</opensearch:itemsPerPage>
  ${entries.join('\n  ')}
</feed>`;
}

/** How arXiv reports a refused query: a feed with one entry whose id is under /api/errors. */
export function arxivErrorFeed(anchor: string, message: string): string {
  return `${ATOM_OPEN}
  <title type="html">ArXiv Query: search_query=&amp;id_list=&amp;start=0&amp;max_results=10</title>
  <id>http://arxiv.org/api/errors</id>
  <updated>2025-01-14T00:00:00-05:00</updated>
  <opensearch:totalResults>1</opensearch:totalResults>
  <entry>
    <id>http://arxiv.org/api/errors#${anchor}</id>
    <title>Error</title>
    <summary>${message}</summary>
    <updated>2025-01-14T00:00:00-05:00</updated>
    <link href="http://arxiv.org/api/errors#${anchor}" rel="alternate" type="text/html"/>
    <author><name>arXiv api core</name></author>
  </entry>
</feed>`;
}

const S2_PAPERS = [
  {
    paperId: '204e3073870fae3d05bcbc2f6a8e263d9b72e776',
    externalIds: { DBLP: 'journals/corr/VaswaniSPUJGKP17', MAG: '2963403868', ArXiv: '1706.03762', DOI: '10.48550/arXiv.1706.03762', CorpusId: 13756489 },
    url: 'https://www.semanticscholar.org/paper/204e3073870fae3d05bcbc2f6a8e263d9b72e776',
    title: 'Attention is All you Need',
    abstract: 'The dominant sequence transduction models are based on complex recurrent or convolutional neural networks. ',
    year: 2017,
    publicationDate: '2017-06-12',
    openAccessPdf: { url: 'https://arxiv.org/pdf/1706.03762', status: 'GREEN', license: null, disclaimer: 'Notice: Paper or abstract available at arXiv.' },
    authors: [
      { authorId: '40348417', name: 'Ashish Vaswani' },
      { authorId: '1846258', name: 'Noam M. Shazeer' },
    ],
  },
  {
    paperId: '5c5751d45e298cea054f32b392c12c61027d2fe7',
    externalIds: { CorpusId: 215416146 },
    url: null,
    title: 'A paper without a page link or an open PDF',
    abstract: null,
    year: 2020,
    publicationDate: null,
    openAccessPdf: { url: '', status: null, license: null, disclaimer: 'No open access copy.' },
    authors: [],
  },
];

export function semanticScholarPage(fields: string[], limit: number) {
  const data = S2_PAPERS.slice(0, limit).map((paper) => {
    const picked: Record<string, unknown> = { paperId: paper.paperId };
    for (const field of fields) picked[field] = paper[field as keyof typeof paper];
    return picked;
  });
  return { total: 3104, offset: 0, next: limit, data };
}

export function wikipediaResults(query: string, limit: number) {
  const search = [
    {
      ns: 0,
      title: 'Photosynthesis',
      pageid: 24544,
      snippet: '<span class="searchmatch">Photosynthesis</span> is a system of biological processes by which photosynthetic organisms, such as most plants, algae &amp; cyanobacteria',
      timestamp: '2025-01-10T18:23:41Z',
    },
    {
      ns: 0,
      title: 'C4 carbon fixation',
      pageid: 509549,
      snippet: 'C4 carbon fixation or the Hatch–Slack pathway is one of three known <span class="searchmatch">photosynthetic</span> processes',
      timestamp: '2024-11-02T07:05:12Z',
    },
    {
      ns: 0,
      title: 'AC/DC: Let There Be Rock?',
      pageid: 1234567,
      snippet: 'A concert film, listed here to check how titles become URLs.',
      timestamp: '2023-05-05T05:05:05Z',
    },
  ];
  return {
    batchcomplete: true,
    continue: { sroffset: limit, continue: '-||' },
    query: { searchinfo: { totalhits: 21876, suggestion: query.toLowerCase(), suggestionsnippet: query.toLowerCase() }, search: search.slice(0, limit) },
  };
}
