// Temporal's codec server protocol, so the Temporal Web UI (and `temporal --codec-endpoint`) can show
// encrypted histories to authorised users: POST /codec/decode and /codec/encode take and return
// { payloads: [{ metadata: { key: base64 }, data: base64 }] }. Authenticated like every route;
// browsers may call it only from the configured Web UI origins (DEEP_RESEARCH_CODEC_ORIGINS).
import type { Payload, PayloadCodec } from '@temporalio/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError } from './errors';
import { apiError, noContent } from './api-schemas';

const CODEC_BODY_LIMIT = 16 * 1024 * 1024;

const base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'not base64');
const wirePayloads = z.object({
  payloads: z.array(z.object({ metadata: z.record(z.string(), base64).optional(), data: base64.optional() })).max(10_000),
});
type WirePayloads = z.infer<typeof wirePayloads>;

function fromWire(body: WirePayloads): Payload[] {
  return body.payloads.map((p) => ({
    metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, new Uint8Array(Buffer.from(v, 'base64'))])),
    data: new Uint8Array(Buffer.from(p.data ?? '', 'base64')),
  }));
}

function toWire(payloads: Payload[]): WirePayloads {
  return {
    payloads: payloads.map((p) => ({
      metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? []).toString('base64')])),
      data: Buffer.from(p.data ?? []).toString('base64'),
    })),
  };
}

export function isCodecPreflight(req: FastifyRequest): boolean {
  return req.method === 'OPTIONS' && /^\/codec\/(en|de)code$/.test(req.url.split('?')[0]);
}

export function registerCodecRoutes(root: FastifyInstance, codec: PayloadCodec | undefined, origins: string[]): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const allowed = new Set(origins);
  const allowOrigin = (req: FastifyRequest, reply: FastifyReply) => {
    const origin = req.headers.origin;
    if (typeof origin !== 'string' || !allowed.has(origin)) return false;
    reply.header('access-control-allow-origin', origin);
    reply.header('access-control-allow-credentials', 'true');
    reply.header('vary', 'Origin');
    return true;
  };

  for (const action of ['encode', 'decode'] as const) {
    app.options(`/codec/${action}`, {
      schema: { tags: ['codec'], operationId: `${action}Preflight`, summary: 'CORS preflight for the Temporal Web UI origins allowed', security: [], response: { 204: noContent, 403: apiError } },
    }, async (req, reply) => {
      if (!allowOrigin(req, reply)) return reply.code(403).send({ error: 'UNAUTHORIZED', message: 'this origin may not call the codec endpoint' });
      reply.header('access-control-allow-methods', 'POST');
      reply.header('access-control-allow-headers', 'authorization, content-type, x-namespace');
      reply.header('access-control-max-age', '600');
      return reply.code(204).send(null);
    });
    app.post(`/codec/${action}`, {
      bodyLimit: CODEC_BODY_LIMIT,
      schema: {
        tags: ['codec'],
        operationId: `${action}Payloads`,
        response: { 200: wirePayloads, 404: apiError.describe('payload encryption is not configured') },
        summary: action === 'decode' ? 'Decrypt Temporal payloads (for the Temporal Web UI and CLI)' : 'Encrypt Temporal payloads',
        body: wirePayloads,
      },
    }, async (req, reply) => {
      allowOrigin(req, reply);
      if (!codec) throw new ApiError(404, 'NOT_FOUND', 'payload encryption is not configured (DEEP_RESEARCH_PAYLOAD_KEYS)');
      const payloads = fromWire(req.body);
      try {
        return toWire(action === 'decode' ? await codec.decode(payloads) : await codec.encode(payloads));
      } catch (err) {
        throw new ApiError(400, 'INVALID_REQUEST', (err as Error).message);
      }
    });
  }
}
