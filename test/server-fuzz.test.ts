// Thousands of malformed requests: every answer is a 4xx (or a 2xx that makes sense), never a 5xx,
// and the server still serves afterwards.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startEnvironment, startHarness, waitFor, type Harness, type TestEnvironment } from './harness';
import { AnsweredStatuses, openApiPath, startService, type TestService } from './harness/service';

// A small deterministic generator, so a failure can be replayed.
function rng(seed: number) {
  let x = seed >>> 0;
  return () => ((x = (x * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

describe('the HTTP service under malformed input', () => {
  let harness: Harness;
  let env: TestEnvironment;
  let api: TestService;
  let token: string;
  const seen = new AnsweredStatuses();

  beforeAll(async () => {
    harness = await startHarness();
    env = await startEnvironment(harness, inject('temporalAddress'));
    api = await startService(env, { onRoute: seen.onRoute });
    token = await api.service.store.createToken('fuzzer');
  });
  afterAll(async () => {
    await api?.close();
    await env?.close();
    await harness?.close();
  });

  it('answers 3000 malformed requests without a 5xx and keeps serving', async () => {
    const done = await api.call('POST', '/api/research', { token, body: { query: 'Fuzz target: peat', settings: { max_sources: 2, max_iterations: 1 }, auto_approve: true } });
    const doneId = done.body.research_id as string;
    await waitFor('completed', async () => (await api.call('GET', `/api/research/${doneId}`, { token })).body.research?.status === 'completed', 90_000, 300);
    const draftId = (await api.call('POST', '/api/research', { token, body: { query: 'Fuzz draft', draft: true } })).body.research_id as string;

    const random = rng(11);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)];
    const junk = (): unknown =>
      pick([
        () => null, () => 42, () => -1e308, () => 'text', () => '', () => true, () => [], () => [1, 'a', null],
        () => ({ query: pick([null, 1, '', ' ', 'x'.repeat(5000), ['a'], { a: 1 }]) }),
        () => ({ query: 'ok', settings: pick([null, [], 'x', { max_sources: 'many' }, { max_sources: -5 }, { __proto__: { a: 1 } }, { nope: 1 }]) }),
        () => ({ answers: pick([[], {}, [1], 'a', null, { q: 2 }]) }),
        () => ({ feedback: pick(['', 7, null, 'y'.repeat(5000)]) }),
        () => ({ plan: pick([null, [], { expanded_queries: [] }, { expanded_queries: [{}] }, { outline: [1] }]) }),
        () => ({ tokens: pick([0, -1, 1.5, 'a', 1e12]), cost_usd: pick([undefined, -1, 'x']) }),
        () => ({ action: pick(['', 'maybe', 1, null]) }),
        () => ({ favourite: pick(['yes', 1, null]) }),
        () => ({ constructor: { prototype: { polluted: true } } }),
      ])();
    const ids = [doneId, draftId, 'nope', '..%2F..%2Fetc', '%00', 'a'.repeat(300), '💥', "'; DROP TABLE x;--", '%E0%A4%A'];
    const routes = [
      () => ['POST', '/api/research'],
      (id: string) => ['PATCH', `/api/research/${id}`],
      (id: string) => ['GET', `/api/research/${id}`],
      (id: string) => ['DELETE', `/api/research/${id}/share`],
      (id: string) => ['POST', `/api/research/${id}/${pick(['approve', 'reject', 'answer', 'revise', 'guide', 'continue', 'top-up', 'review', 'cancel', 'share', 'unknown'])}`],
      (id: string) => ['PUT', `/api/research/${id}/favourite`],
      (id: string) => ['GET', `/api/research/${id}/report?format=${pick(['md', 'html', 'json', 'pdf', '', '%ZZ', 'x'.repeat(3000)])}`],
      (id: string) => ['GET', `/api/research/${id}/artifacts/${pick(['0'.repeat(64), '../../etc/passwd', 'zz', 'f'.repeat(64)])}`],
      (id: string) => ['GET', `/api/research/${id}/events?after=${pick(['-1', 'x', '1e99', '99999999', ''])}`],
      () => ['GET', `/api/research?${pick(['limit=0', 'limit=abc', 'limit=1000', 'cursor=%%%', 'cursor=' + 'A'.repeat(500), 'status=nope', 'favourite=maybe', 'q=' + '%25'.repeat(10), 'q=_%'])}`],
      () => ['GET', `/api/shared/${pick(['x', 'A'.repeat(40), '../'])}`],
      () => ['GET', `/share/${pick(['x', 'B'.repeat(40)])}`],
      () => [pick(['OPTIONS', 'HEAD', 'PATCH', 'PUT']), `/api/${pick(['research', 'metadata', '..', ''])}`],
    ];
    const statuses = new Map<number, number>();
    const fiveHundreds: string[] = [];
    for (let batch = 0; batch < 150; batch++) {
      await Promise.all(
        Array.from({ length: 20 }, async () => {
          const [method, route] = pick(routes)(pick(ids));
          const rawBody = pick([undefined, 'json', 'json', 'json', 'broken', 'form']);
          const headers: Record<string, string> = { authorization: pick([`Bearer ${token}`, `Bearer ${token}`, `Bearer ${token}`, 'Bearer nope', 'Basic abc', '']) };
          if (random() < 0.1) headers['last-event-id'] = pick(['-1', 'abc', '1'.repeat(40), '5']);
          let body: string | undefined;
          if (rawBody === 'json') {
            headers['content-type'] = 'application/json';
            body = JSON.stringify(junk());
          } else if (rawBody === 'broken') {
            headers['content-type'] = pick(['application/json', 'text/plain', 'application/x-www-form-urlencoded']);
            body = pick(['{', '{"query":', '\u0000', 'query=x']);
          } else if (rawBody === 'form') {
            headers['content-type'] = 'multipart/form-data; boundary=x';
            body = '--x\r\n';
          }
          if (method === 'GET' || method === 'HEAD') body = undefined;
          const res = await fetch(`${api.url}${route}`, { method, headers, body, signal: AbortSignal.timeout(30_000) }).catch((err: Error) => ({ status: -1, text: async () => err.message }));
          const text = await res.text();
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (res.status >= 500 || res.status < 0) fiveHundreds.push(`${res.status} ${method} ${route.slice(0, 80)} ${String(body).slice(0, 80)} → ${text.slice(0, 200)}`);
        }),
      );
    }
    expect(fiveHundreds).toEqual([]);
    // Every answer a route gave is one its OpenAPI operation documents.
    const paths = (await api.call('GET', '/api/openapi.json')).body.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>;
    const undocumented = [...seen.answered].flatMap(([key, codes]) => {
      const [method, url] = key.split(' ');
      const documented = Object.keys(paths[openApiPath(url)]?.[method.toLowerCase()]?.responses ?? {});
      return url.startsWith('/api/docs') || method === 'HEAD' ? [] : [...codes].filter((c) => !documented.includes(String(c))).map((c) => `${key} ${c}`);
    });
    expect(undocumented).toEqual([]);
    expect([...statuses.values()].reduce((a, b) => a + b, 0)).toBe(3000);
    expect(statuses.get(400) ?? 0).toBeGreaterThan(500);
    // Still serving, and the completed session is intact.
    const after = await api.call('GET', `/api/research/${doneId}/report?format=json`, { token });
    expect(after.status === 200 || after.status === 404).toBe(true);
    expect((await api.call('GET', '/api/research', { token })).status).toBe(200);
  });
});
