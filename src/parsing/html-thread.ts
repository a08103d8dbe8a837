// One HTML parser thread (see html-threads.ts): parses the pages it is sent, one at a time, with
// the same parser as the main thread. It warms the parser up on its own page first, so a user's
// first page does not pay for compiling it.
import { parentPort } from 'node:worker_threads';
import { parseHtml } from './html';
import { WARM_UP_PAGE } from './warm-up';

interface Job {
  id: number;
  html: string;
  url: string;
}

try {
  // A few parses of a page the size of a real article: the compiler optimises what runs often.
  const article = WARM_UP_PAGE.replace(/<main>([\s\S]*)<\/main>/, (_, inner: string) => `<main>${inner.repeat(40)}</main>`);
  for (let i = 0; i < 5; i++) parseHtml(article, 'http://warm-up.invalid/');
} catch {
  // A warm-up that fails says nothing about the pages to come.
}
parentPort?.postMessage({ ready: true });

parentPort?.on('message', ({ id, html, url }: Job) => {
  try {
    parentPort?.postMessage({ id, doc: parseHtml(html, url) });
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    parentPort?.postMessage({ id, error: { name: e.name, message: e.message } });
  }
});
