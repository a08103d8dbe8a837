// What a contract fuzzer (Schemathesis, npm run test:contract) holds the server to, checked here on
// a few cases each: a method the path lacks answers 405 with Allow; MCP answers JSON whatever the
// caller accepts and only POST is offered; and each rule the server enforces is one the document
// states, so the document's pattern and the server agree on values either side of it.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startEnvironment, startHarness, type Harness, type TestEnvironment } from './harness';
import { startService, type TestService } from './harness/service';

type Schema = { pattern?: string; properties?: Record<string, Schema>; items?: Schema; anyOf?: Schema[]; required?: string[]; $ref?: string };
type Document = { paths: Record<string, Record<string, { parameters?: { name: string; schema: Schema }[]; requestBody?: { content: Record<string, { schema: Schema }> } }>>; components: { schemas: Record<string, Schema> } };

describe('the API as its document states it', () => {
  let harness: Harness;
  let env: TestEnvironment;
  let api: TestService;
  let token: string;
  let doc: Document;

  beforeAll(async () => {
    harness = await startHarness();
    env = await startEnvironment(harness, inject('temporalAddress'));
    api = await startService(env);
    token = await api.service.store.createToken('contract');
    doc = (await api.call('GET', '/api/openapi.json')).body;
  });
  afterAll(async () => {
    await api?.close();
    await env?.close();
    await harness?.close();
  });

  /** Any method, even those fetch refuses to send (TRACE), with a body type no parser takes. */
  const raw = (method: string, path: string) =>
    new Promise<{ status: number; allow?: string; body: string }>((resolve, reject) => {
      const req = request(`${api.url}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-unknown', 'content-length': '1' } }, (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += String(d)));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, allow: res.headers.allow, body: text }));
      });
      req.on('error', reject);
      req.end('x');
    });
  const body = (path: string, method = 'post') => doc.paths[path][method].requestBody?.content['application/json'].schema as Schema;
  const matches = (schema: Schema | undefined, value: string) => new RegExp(schema?.pattern ?? '').test(value);

  it('answers a method a path does not have with 405 and the methods it has, before reading any body', async () => {
    const cases: [string, string, string][] = [
      ['TRACE', '/api/health', 'GET, HEAD'],
      ['QUERY', '/api/research/abc', 'DELETE, GET, HEAD, PATCH'],
      ['PUT', '/api/schedules', 'GET, HEAD, POST'],
      ['OPTIONS', '/api/research', 'GET, HEAD, POST'],
      ['GET', '/api/mcp', 'POST'],
      ['DELETE', '/api/mcp', 'POST'],
    ];
    for (const [method, path, allow] of cases) {
      const res = await raw(method, path);
      expect({ method, path, status: res.status, allow: res.allow }).toEqual({ method, path, status: 405, allow });
      expect(JSON.parse(res.body).error).toBe('METHOD_NOT_ALLOWED');
    }
    expect((await raw('GET', '/api/nothing-here')).status).toBe(404);
    expect(doc.paths['/api/mcp']).toEqual({ post: expect.anything() });
  });

  it('refuses a path parameter too long or undecodable as any bad request: 400 in the documented shape (a fuzzer once got an undocumented 414)', async () => {
    const zalgo = encodeURIComponent('T\u0337\u0336o invoke '.repeat(20));
    for (const path of [`/api/research/${zalgo}/retry`, `/api/research/${'a'.repeat(201)}`, '/api/schedules/%E0%A4%A']) {
      const res = await raw(path.endsWith('retry') ? 'POST' : 'GET', path);
      expect({ path, status: res.status }).toEqual({ path, status: 400 });
      expect(JSON.parse(res.body)).toMatchObject({ error: 'INVALID_REQUEST', field: 'params' });
    }
    expect((await api.call('GET', `/api/research/${'a'.repeat(120)}`, { token })).status).toBe(400);
  });

  it('answers MCP in JSON whatever the caller accepts: a request 200 with its answer, a notification 202', async () => {
    const call = (message: unknown, accept?: string) =>
      fetch(`${api.url}/api/mcp`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(accept ? { accept } : {}) }, body: JSON.stringify(message) });
    for (const accept of [undefined, 'application/json', 'text/html']) {
      const res = await call({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, accept);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { result: { tools: { name: string }[] } }).result.tools.map((t) => t.name)).toContain('start');
    }
    const unknown = await call({ jsonrpc: '2.0', id: 'x', method: 'no/such' });
    expect(unknown.status).toBe(200);
    expect(((await unknown.json()) as { error: { code: number } }).error.code).toBe(-32601);
    expect((await call({ jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
    expect((await call({ jsonrpc: '2.0' })).status).toBe(400);
  });

  it("answers metadata at once from its own schemas, the same as the researchMetadata workflow's", async () => {
    const since = Date.now();
    const answer = await api.call('GET', '/api/metadata', { token });
    expect(Date.now() - since).toBeLessThan(2_000);
    expect(answer.body).toEqual(await env.client.metadata());
  });

  it('lists at once when a session it would refresh gets no answer from a worker, showing the status the store has', async () => {
    // A running session whose workflow no worker serves: asking it for its status waits.
    const id = 'contract-unserved';
    const handle = await env.temporal.workflow.start('research', { workflowId: `research-${id}`, taskQueue: 'contract-nobody-polls', args: [] });
    await api.service.store.insert({ research_id: id, owner: 'contract', query: 'Contract: unserved', status: 'running', settings: {}, parent_id: null });
    try {
      for (let round = 0; round < 2; round++) {
        const since = Date.now();
        const listed = await api.call('GET', '/api/research', { token });
        expect(Date.now() - since).toBeLessThan(4_000);
        expect(listed.body.sessions.find((s: { research_id: string }) => s.research_id === id)).toMatchObject({ status: 'running' });
      }
    } finally {
      await handle.terminate('test over');
      await api.service.store.markDeleted(id).catch(() => undefined);
    }
  });

  it("states the rules it enforces: blank text, a schedule's bounds, a top-up's limits, a draft's question, delivery, cursors", async () => {
    const created = (await api.call('POST', '/api/research', { token, body: { query: 'Contract: tidal power', draft: true } })).body.research_id as string;
    // Text that trims to nothing is refused, and the document's pattern says so.
    const approve = body('/api/research/{id}/approve');
    const brief = ((approve.anyOf?.find((a) => a.properties) ?? approve).properties?.plan as Schema).properties?.research_brief;
    for (const [value, ok] of [['a brief', true], ['\f', false], [' \u00a0\ufeff', false], ['\u001c', true]] as const) expect(matches(brief, value)).toBe(ok);
    expect((await api.call('POST', `/api/research/${created}/approve`, { token, body: { plan: { research_brief: ' \u3000 ' } } })).status).toBe(400);
    // Schedules: 10 s to 366 days, in the document's pattern and at the server.
    const every = body('/api/schedules').properties?.every;
    for (const [value, ok] of [['10s', true], ['9s', false], ['366d', true], ['367d', false], ['52w', true], ['53w', false], ['0d', false], ['8784h', true], ['8785h', false], ['7D', true]] as const) {
      expect({ value, documented: matches(every, value) }).toEqual({ value, documented: ok });
      const res = await api.call('POST', '/api/schedules', { token, body: { query: 'q', every: value } });
      expect({ value, refused: res.status === 400 }).toEqual({ value, refused: !ok });
      if (res.status === 201) await api.call('DELETE', `/api/schedules/${res.body.schedule_id}`, { token });
    }
    // A top-up names a limit; a draft needs its question; a delivery needs a target.
    expect(body('/api/research/{id}/top-up').anyOf?.map((a) => a.required?.[0])).toEqual(['tokens', 'cost_usd', 'searches', 'fetches', 'wall_seconds']);
    expect(body('/api/research').anyOf).toEqual([{ required: ['query'] }, { properties: { draft: { enum: [false] } } }]);
    expect((await api.call('POST', '/api/research', { token, body: { draft: true } })).status).toBe(400);
    const settings = doc.components.schemas[(body('/api/research').properties?.settings?.$ref ?? '').split('/').at(-1) as string] ?? body('/api/research').properties?.settings;
    expect(settings?.properties?.delivery?.anyOf?.map((a) => a.required?.[0])).toEqual(['email', 'webhooks']);
    const refused = await api.call('PATCH', `/api/research/${created}`, { token, body: { settings: { delivery: { email: { to: ['no-at-sign.example'] } } } } });
    expect(refused.body.field).toBe('body.settings.delivery.email.to.0');
    // Addresses as `format: email` means them (jsonschema_rs): RFC 5321's lengths (a contract fuzzer once sent a
    // 103-character local part that was taken), host-name labels that neither start nor end with '-' (one sent "…@h-.2.ef").
    const email = settings?.properties?.delivery?.properties?.email?.properties?.to?.items;
    for (const [to, ok] of [[`${'a'.repeat(64)}@example.com`, true], [`${'a'.repeat(65)}@example.com`, false], [`a@${'b'.repeat(64)}.com`, false], [`a@${'b.'.repeat(127)}com`, false], ['d.d@h-.example.com', false], ['d@-h.example.com', false], ["o'neil+x@mail-1.example.org", true]] as const) {
      if (to.length < 64) expect({ to, documented: matches(email, to) }).toEqual({ to, documented: ok });
      const res = await api.call('PATCH', `/api/research/${created}`, { token, body: { settings: { delivery: { email: { to: [to] } } } } });
      expect({ to, status: res.status }).toEqual({ to, status: ok ? 200 : 400 });
    }
    // A webhook is an http(s) URL every parser reads alike: the document's pattern and the server agree.
    const webhook = settings?.properties?.delivery?.properties?.webhooks?.items?.properties?.url;
    for (const [url, ok] of [['https://hooks.example.com/x?y=%2F', true], ['http://127.0.0.1:8080/h', true], ['HTTP:', false], ['http://999.1.1.1/', false], ['ftp://a.b', false], ['http://a:65536', false]] as const) {
      expect({ url, documented: matches(webhook, url) }).toEqual({ url, documented: ok });
      const res = await api.call('PATCH', `/api/research/${created}`, { token, body: { settings: { delivery: { webhooks: [{ url }] } } } });
      expect({ url, status: res.status }).toEqual({ url, status: ok ? 200 : 400 });
    }
    // A cursor is a place in the list that anyone may write: the rows after it.
    const cursor = doc.paths['/api/research'].get.parameters?.find((p) => p.name === 'cursor')?.schema;
    expect(matches(cursor, '2099-01-01T00:00:00.000Z~zzz')).toBe(true);
    const after = await api.call('GET', '/api/research?cursor=2099-01-01T00:00:00.000Z~zzz', { token });
    expect(after.body.sessions.map((s: { research_id: string }) => s.research_id)).toContain(created);
    expect((await api.call('GET', '/api/research?cursor=bm9wZQ', { token })).status).toBe(400);
    // An integer in the query is one, as sent: blank, spaced, hex or repeated are refused, not read as a number.
    for (const [query, ok] of [['limit=5', true], ['limit=', false], ['limit=%205', false], ['limit=0x5', false], ['limit=5&limit=6', false]] as const) {
      const res = await api.call('GET', `/api/research?${query}`, { token });
      expect({ query, status: res.status }).toEqual({ query, status: ok ? 200 : 400 });
    }
    const events = async (query: string) => {
      const stream = new AbortController();
      const res = await fetch(`${api.url}/api/research/${created}/events?${query}`, { headers: { authorization: `Bearer ${token}` }, signal: stream.signal });
      stream.abort();
      return res.status;
    };
    // A draft's stream ends at once; the refusal comes before it starts.
    for (const [query, ok] of [['after=0', true], ['after=9007199254740990', true], ['after=', false], ['after=+', false], ['after=1e1', false]] as const) expect({ query, status: await events(query) }).toEqual({ query, status: ok ? 200 : 400 });
  });
});
