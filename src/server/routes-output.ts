// What a session produced: the report (Markdown, HTML, JSON), artifacts by file id and read-only
// share links. The live event stream is in routes-events.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { artifactIdsIn } from '../stores/sessions';
import type { ResearchSnapshot } from '../domain/types';
import { ApiError } from './errors';
import { reportPdf } from '../report/pdf';
import { reportPage } from '../report/html';
import type { ResearchService } from './research-service';
import { isTerminal } from '../domain/names';
import type { OwnedSession } from '../stores/service';
import { idParams } from './route-schemas';
import { apiError, binary, reportJson as reportJsonSchema } from './api-schemas';

const CONTENT_TYPES: Record<string, string> = { html: 'text/html', pdf: 'application/pdf', docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', text: 'text/plain; charset=utf-8' };

export function reportJson(s: OwnedSession, state: ResearchSnapshot) {
  return {
    research_id: s.research_id,
    status: state.status,
    query: state.initial_query,
    report_markdown: state.report_markdown,
    sources: state.sources.map((src) => ({ id: src.id, url: src.url, title: src.title, status: src.status, tier: src.tier, credibility: src.credibility })),
    findings: state.findings.map((f) => ({ id: f.id, content: f.content, confidence: f.confidence, source_ids: f.source_ids })),
    citation_warnings: state.citation_warnings,
    usage: state.usage,
    updated_at: state.updated_at,
  };
}

export function registerOutputRoutes(root: FastifyInstance, service: ResearchService): void {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.get('/api/research/:id/report', {
    schema: {
      tags: ['output'],
      operationId: 'synthesizedResult',
      summary: 'The report as Markdown (default), HTML, JSON or PDF (laid out on the server, no browser needed)',
      response: {
        200: {
          description: 'the report in the format asked for',
          content: { 'text/markdown': { schema: z.string() }, 'text/html': { schema: z.string() }, 'application/json': { schema: reportJsonSchema }, 'application/pdf': { schema: binary } },
        },
        409: apiError,
      },
      params: idParams,
      querystring: z.object({ format: z.enum(['md', 'html', 'json', 'pdf']).default('md') }),
    },
  }, async (req, reply) => {
    const { session, markdown, state } = await service.report(req.user, req.params.id);
    const format = req.query.format;
    if (format === 'json') return reportJson(session, state);
    if (format === 'html') return reply.type('text/html; charset=utf-8').send(reportPage(state.initial_query, markdown));
    if (format === 'pdf') {
      const pdf = await reportPdf(markdown, { title: state.initial_query, subject: `deep-research ${session.research_id} (${state.status})` });
      return reply.type('application/pdf').header('content-disposition', `attachment; filename="research-${session.research_id}.pdf"`).send(pdf);
    }
    return reply.type('text/markdown; charset=utf-8').send(markdown);
  });

  app.get('/api/research/:id/artifacts/:fileId', {
    schema: {
      tags: ['output'],
      operationId: 'getArtifact',
      summary: 'One stored artifact of this session (page body, PDF, parsed text) with its content type',
      response: { 200: { description: 'the stored bytes, with the type they were stored with (served sandboxed)', content: { '*/*': { schema: binary } } } },
      params: idParams.extend({ fileId: z.string().regex(/^[a-f0-9]{64}$/, 'not a file id') }),
    },
  }, async (req, reply) => {
    const { state } = await service.state(req.user, req.params.id);
    const fileId = req.params.fileId;
    if (!state || !artifactIdsIn(JSON.stringify(state)).includes(fileId)) throw new ApiError(404, 'NOT_FOUND', `research ${req.params.id} has no artifact ${fileId}`);
    const store = service.artifacts();
    const meta = await store.describe(fileId);
    if (!meta) throw new ApiError(404, 'NOT_FOUND', `artifact ${fileId} is no longer stored`);
    const body = await store.get(fileId);
    // Fetched pages are served inert: sandboxed, never run as this origin's script.
    return reply
      .header('content-security-policy', "sandbox; default-src 'none'")
      .header('content-disposition', `inline; filename="${fileId}"`)
      .type(meta.content_type ?? CONTENT_TYPES[meta.kind] ?? 'application/octet-stream')
      .send(body);
  });

  const tokenParams = z.object({ token: z.string().regex(/^[A-Za-z0-9_-]{20,64}$/, 'not a share token') });

  app.get('/api/shared/:token', {
    schema: { tags: ['sharing'], operationId: 'getSharedReport', summary: 'A shared report as JSON (read-only, no token needed)', params: tokenParams, security: [], response: { 200: reportJsonSchema } },
  }, async (req) => {
    const { session, state } = await service.reportOf(await service.shared(req.params.token));
    return reportJson(session, state);
  });

  app.get('/share/:token', {
    schema: {
      tags: ['sharing'], operationId: 'sharedReportPage', summary: 'A shared report as a read-only page', params: tokenParams, security: [],
      response: { 200: { description: 'the report as an HTML page', content: { 'text/html': { schema: z.string() } } } },
    },
  }, async (req, reply) => {
    const { state } = await service.reportOf(await service.shared(req.params.token));
    const note = isTerminal(state.status) ? `Shared research · ${state.status}` : `Shared research · in progress (${state.status})`;
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(reportPage(state.initial_query, state.report_markdown, note));
  });
}
