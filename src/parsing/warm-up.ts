// A page of the parser's own, parsed once by each parser (main thread or parser thread) before a
// user's pages, so the first of them does not also pay for compiling the parser (about ten times a
// warm parse).
export const WARM_UP_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Warm-up: grid storage</title></head>
<body><nav><a href="/">Home</a></nav><main><article><h1>Grid storage</h1>
<p>Battery storage on the grid grew again last year, as prices for cells fell and more wind and solar power needed balancing.</p>
<h2>Costs</h2><p>Installed costs fell by a fifth, while the largest projects doubled in size and operators added longer durations.</p>
<ul><li>Lithium iron phosphate cells dominate new projects.</li><li>Sodium-ion cells appear in pilots.</li></ul>
</article></main><footer>Cookie notice</footer></body></html>`;
