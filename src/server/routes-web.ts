// The web app (built into dist/web by `npm install`), which providers have their keys (for the
// start form's choices), and a source's stored text as a preview.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { listProviders } from '../providers/listing';
import { splitModelRef } from '../config/model-catalog';
import { ApiError } from './errors';
import type { ResearchService } from './research-service';
import { idParams } from './route-schemas';
import { binary, providers, sourceText } from './api-schemas';

const ASSET_TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.map': 'application/json', '.txt': 'text/plain; charset=utf-8' };
const PREVIEW_CHARS = 20_000;
/** app.js.map as served (Source Map revision 3). */
const sourceMap = z.looseObject({ version: z.literal(3), sources: z.array(z.string()), mappings: z.string() }) as unknown as z.ZodType<Buffer>;

/** dist/web beside the compiled server, or the repository's dist/web when running from source. */
export function webRoot(): string | undefined {
  const candidates = [path.join(__dirname, '..', 'web'), path.join(__dirname, '..', '..', 'dist', 'web')];
  return candidates.find((dir) => existsSync(path.join(dir, 'app.js')) && existsSync(path.join(dir, 'index.html')));
}

export function registerWebRoutes(root: FastifyInstance, service: ResearchService): void {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.get('/', {
    schema: {
      tags: ['web'], operationId: 'webApp', summary: 'The web app', security: [],
      response: { 200: { description: 'the app page', content: { 'text/html': { schema: binary } } }, 503: { description: 'the web app is not built', content: { 'text/plain': { schema: z.string() } } } },
    },
  }, async (_req, reply) => {
    const dir = webRoot();
    if (!dir) return reply.code(503).type('text/plain; charset=utf-8').send('The web app is not built: run "npm run build:web" (npm install builds it).');
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(readFileSync(path.join(dir, 'index.html')));
  });

  app.get('/assets/:file', {
    schema: {
      tags: ['web'], operationId: 'webAsset', summary: "The web app's script, styles, source map and licences", security: [],
      params: z.object({ file: z.string().regex(/^app\.(js|css|js\.map|js\.LEGAL\.txt)$/) }),
      response: {
        200: {
          description: 'the file: the script, the styles, the licences, or the source map (JSON)',
          content: { 'text/javascript': { schema: binary }, 'text/css': { schema: binary }, 'application/json': { schema: sourceMap }, 'text/plain': { schema: binary } },
        },
      },
    },
  }, async (req, reply) => {
    const dir = webRoot();
    const file = dir && path.join(dir, req.params.file);
    if (!file || !existsSync(file)) throw new ApiError(404, 'NOT_FOUND', `no asset ${req.params.file}`);
    return reply.type(ASSET_TYPES[path.extname(file)] ?? 'application/octet-stream').header('cache-control', 'no-cache').send(readFileSync(file));
  });

  app.get('/api/providers', {
    schema: { tags: ['sessions'], operationId: 'listProviders', summary: 'Models and search providers this server knows, and which have their keys (never the keys themselves)', response: { 200: providers } },
  }, async () => {
    const config = service.client.config;
    const rows = await listProviders(config);
    const byName = new Map(rows.filter((r) => r.type === 'model').map((r) => [r.name, r]));
    const refs = [...new Set([config.models.default, ...config.models.fallbacks, ...Object.values(config.models.roles).flat()])];
    const models = refs.map((ref) => {
      const row = byName.get(splitModelRef(ref).provider);
      return { ref, provider: splitModelRef(ref).provider, default: ref === config.models.default, key: row?.key ?? 'missing', key_env: row?.key_env, available: row?.available ?? false, reason: row?.reason };
    });
    const search = rows.filter((r) => r.type === 'search').map((r) => ({ name: r.name, kind: r.kind, key: r.key, key_env: r.key_env, available: r.available, reason: r.reason, in_chain: r.used_for.length > 0 }));
    return { models, search };
  });

  app.get('/api/research/:id/sources/:sourceId/text', {
    schema: {
      tags: ['output'],
      operationId: 'getSourceText',
      response: { 200: sourceText },
      summary: 'The stored text of one source (parsed from its page or PDF), for a preview: at most 20,000 characters',
      params: idParams.extend({ sourceId: z.string().regex(/^S\d{1,6}$/, 'not a source id') }),
    },
  }, async (req) => {
    const { state } = await service.state(req.user, req.params.id);
    const source = state?.sources.find((s) => s.id === req.params.sourceId);
    if (!source) throw new ApiError(404, 'NOT_FOUND', `research ${req.params.id} has no source ${req.params.sourceId}`);
    const fileId = source.text_file_id;
    // Through the configured artifact store: files, shared PostgreSQL or an S3 bucket.
    const store = service.artifacts();
    const text = fileId && (await store.describe(fileId)) ? (await store.get(fileId)).toString('utf8') : '';
    return {
      source_id: source.id,
      title: source.title,
      url: source.url,
      content_type: source.content_type ?? null,
      retrieved_at: source.retrieved_at ?? null,
      file_id: source.file_id ?? null,
      text: text.slice(0, PREVIEW_CHARS),
      truncated: text.length > PREVIEW_CHARS,
      chars: text.length,
    };
  });
}
