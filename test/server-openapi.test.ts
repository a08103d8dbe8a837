// The OpenAPI document is the API: every route the server registers is in it with an operationId,
// its real success status and the errors it can answer (one error schema), and a real linter
// (Redocly's recommended rules) finds nothing wrong with it.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PROJECT_ROOT } from '../src/config/load';
import { startEnvironment, startHarness, type Harness, type TestEnvironment } from './harness';
import { AnsweredStatuses, openApiPath, readSse, startService, type TestService } from './harness/service';
import { streamFrameSchema } from '../src/server/state-schemas';

type JsonSchema = { $ref?: string; type?: string | string[]; properties?: Record<string, JsonSchema>; additionalProperties?: boolean | JsonSchema; items?: JsonSchema; anyOf?: JsonSchema[]; oneOf?: JsonSchema[] };

/** Paths of answered fields the document's schema does not name (a field typed only as "anything" counts as named). */
function untyped(value: unknown, schema: JsonSchema, components: Record<string, JsonSchema>, at: string, out: string[] = []): string[] {
  const resolved = schema.$ref ? components[schema.$ref.split('/').at(-1) as string] : schema;
  if (!resolved || value === null || value === undefined) return out;
  const options = resolved.anyOf ?? resolved.oneOf;
  if (options) {
    const kind = Array.isArray(value) ? 'array' : typeof value === 'object' ? 'object' : undefined;
    const fitting = options.filter((o) => !kind || !o.type || [o.type].flat().includes(kind)).map((o) => untyped(value, o, components, at)).sort((a, b) => a.length - b.length)[0] ?? [];
    out.push(...fitting);
    return out;
  }
  if (Array.isArray(value)) {
    if (resolved.items) value.forEach((v, i) => untyped(v, resolved.items as JsonSchema, components, `${at}[${i}]`, out));
    return out;
  }
  if (typeof value !== 'object') return out;
  for (const [key, v] of Object.entries(value)) {
    const declared = resolved.properties?.[key];
    if (declared) untyped(v, declared, components, `${at}.${key}`, out);
    else if (typeof resolved.additionalProperties === 'object' && Object.keys(resolved.additionalProperties).length) untyped(v, resolved.additionalProperties, components, `${at}.${key}`, out);
    else if (resolved.properties) out.push(`${at}.${key}`);
  }
  return out;
}

type Operation = { operationId?: string; responses: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }> };

describe('the OpenAPI document', () => {
  let harness: Harness;
  let env: TestEnvironment;
  let api: TestService;
  const seen = new AnsweredStatuses();
  let document: { openapi: string; servers?: unknown[]; paths: Record<string, Record<string, Operation>> };

  beforeAll(async () => {
    harness = await startHarness();
    env = await startEnvironment(harness, inject('temporalAddress'));
    api = await startService(env, { onRoute: seen.onRoute });
    document = (await api.call('GET', '/api/openapi.json')).body;
  });
  afterAll(async () => {
    await api?.close();
    await env?.close();
    await harness?.close();
  });

  // Swagger UI's own pages serve the document; they are not part of the API it describes.
  const apiRoutes = () => seen.routes.filter((r) => r.method !== 'HEAD' && !r.url.startsWith('/api/docs'));
  const operation = (method: string, url: string): Operation | undefined => document.paths[openApiPath(url)]?.[method.toLowerCase()];

  it('has every route the server registers, each with an operationId, a success answer and its errors', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.servers?.length).toBeGreaterThan(0);
    const routes = apiRoutes();
    expect(routes.length).toBeGreaterThan(40);
    const missing = routes.filter((r) => !operation(r.method, r.url)).map((r) => `${r.method} ${r.url}`);
    expect(missing).toEqual([]);
    const ids = routes.map((r) => operation(r.method, r.url)?.operationId);
    expect(ids.filter((id) => !id)).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    for (const r of routes) {
      const codes = Object.keys(operation(r.method, r.url)?.responses ?? {});
      const where = `${r.method} ${r.url}: ${codes.join(' ')}`;
      if (r.url !== '/api/mcp' || r.method === 'POST') expect(codes.some((c) => /^2\d\d$/.test(c)), where).toBe(true);
      expect(codes, where).toContain('429');
      if (r.url.includes(':')) expect(codes, where).toEqual(expect.arrayContaining(['400', '404']));
      for (const code of codes.filter((c) => /^4\d\d$/.test(c))) {
        // The chat routes answer as OpenAI does, for OpenAI's clients.
        const refusal = r.url.startsWith('/v1/') ? 'OpenAiError' : 'Error';
        expect(operation(r.method, r.url)?.responses[code].content?.['application/json']?.schema?.$ref, `${where} ${code}`).toBe(`#/components/schemas/${refusal}`);
      }
    }
    const codesOf = (method: string, url: string) => Object.keys(operation(method, url)?.responses ?? {});
    expect(codesOf('POST', '/api/research')).toContain('201');
    expect(codesOf('POST', '/api/research')).not.toContain('200');
    expect(codesOf('POST', '/api/research/:id/enhance')).toContain('201');
    expect(codesOf('POST', '/api/schedules')).toContain('201');
    expect(codesOf('DELETE', '/api/schedules/:id')).toContain('204');
    expect(codesOf('DELETE', '/api/schedules/:id')).not.toContain('200');
    expect(codesOf('POST', '/api/research/:id/approve')).toEqual(expect.arrayContaining(['200', '401', '404', '409']));
    expect(codesOf('GET', '/api/health')).not.toContain('401');
  });

  it('documents every status the server answered while serving real requests', async () => {
    const token = await api.service.store.createToken('reader');
    const created = await api.call('POST', '/api/research', { token, body: { query: 'OpenAPI: what do routes answer?', settings: { max_sources: 2, max_iterations: 1 } } });
    expect(created.status, created.text).toBe(201);
    const id = created.body.research_id as string;
    const calls: [string, string, unknown?][] = [
      ['GET', '/api/health'], ['GET', '/api/research'], ['GET', `/api/research/${id}`], ['GET', '/api/research/nope-1'],
      ['POST', '/api/research', { query: '' }], ['POST', `/api/research/${id}/review`, { action: 'accept' }],
      ['PUT', `/api/research/${id}/favourite`, { favourite: true }], ['GET', '/api/providers'], ['GET', '/api/schedules'],
      ['POST', '/codec/decode', { payloads: [] }], ['GET', '/api/mcp'], ['GET', '/assets/app.css'], ['DELETE', `/api/research/${id}`],
    ];
    for (const [method, url, body] of calls) await api.call(method, url, { token, body });
    await api.call('GET', '/api/research');
    let checked = 0;
    for (const [key, statuses] of seen.answered) {
      const [method, url] = key.split(' ');
      if (url.startsWith('/api/docs')) continue;
      for (const status of statuses) {
        checked++;
        expect(Object.keys(operation(method, url)?.responses ?? {}), `${key} answered ${status}`).toContain(String(status));
      }
    }
    expect(checked).toBeGreaterThan(12);
  });

  it("types every field of a real session's state and every frame of its event stream", async () => {
    const token = await api.service.store.createToken('typed');
    const created = await api.call('POST', '/api/research', { token, body: { query: 'OpenAPI: are the answers typed?', settings: { max_sources: 2, max_iterations: 1 }, auto_approve: true } });
    expect(created.status, created.text).toBe(201);
    const id = created.body.research_id as string;
    const frames = await readSse(`${api.url}/api/research/${id}/events`, { token, stop: (e) => e.event === 'end' });
    expect(frames.at(-1)?.event).toBe('end');
    for (const f of frames) {
      const parsed = streamFrameSchema.safeParse({ ...(f.id ? { id: f.id } : {}), event: f.event, data: JSON.parse(f.data) });
      expect(parsed.success, `${f.event} ${f.data.slice(0, 200)}: ${parsed.error?.message}`).toBe(true);
    }
    const answer = await api.call('GET', `/api/research/${id}`, { token });
    expect(answer.status).toBe(200);
    const components = (document as unknown as { components: { schemas: Record<string, JsonSchema> } }).components.schemas;
    const schema = (operation('GET', '/api/research/:id')?.responses['200'].content?.['application/json']?.schema ?? {}) as JsonSchema;
    expect(answer.body.state.sources.length).toBeGreaterThan(0);
    expect(answer.body.state.findings.length).toBeGreaterThan(0);
    expect(answer.body.state.usage.model_calls).toBeGreaterThan(0);
    // Every field the answer holds, at every depth, is named by the document (settings: by GET /api/metadata).
    expect(untyped(answer.body, schema, components, 'answer')).toEqual([]);
    expect(Object.keys(components.ResearchState.properties ?? {})).toEqual(expect.arrayContaining(['plan', 'sources', 'findings', 'usage', 'mind', 'delivery_log', 'report_markdown', 'last_event_seq']));
    // And the checker does check: a field the document does not know is found.
    expect(untyped({ ...answer.body, state: { ...answer.body.state, sources: [{ ...answer.body.state.sources[0], secret_field: 1 }] } }, schema, components, 'answer')).toEqual(['answer.state.sources[0].secret_field']);
  });

  it('lints clean with Redocly (recommended rules; two reasoned exceptions in .redocly.lint-ignore.yaml)', () => {
    // Linted where `npm run openapi` writes it, so the ignore file's paths apply.
    const file = path.join(PROJECT_ROOT, 'generated', 'openapi.json');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(document, null, 2));
    const run = spawnSync(path.join(PROJECT_ROOT, 'node_modules', '.bin', 'redocly'), ['lint', '--format=json', 'generated/openapi.json'], {
      cwd: PROJECT_ROOT,
      encoding: 'utf8',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      timeout: 120_000,
    });
    const report = JSON.parse(run.stdout.slice(run.stdout.indexOf('{'))) as { totals: { errors: number; warnings: number; ignored: number }; problems: { ruleId: string; message: string }[] };
    expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    expect(run.status).toBe(0);
  });
});
