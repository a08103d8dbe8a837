// Any chat client is a client: GET /v1/models and POST /v1/chat/completions in OpenAI's wire format
// (stream and not), the API's bearer tokens, OpenAI's error shape. The conversation is the session
// (src/server/chat-conversation.ts): the first message starts one, each later message is the
// person's answer, sent as the message of the table every client sends; the reply follows the
// session until it asks something or ends. A client that goes away loses nothing: the session runs
// on, and the next message in the conversation follows it from where it is.
import { randomUUID } from 'node:crypto';
import { setTimeout as wait } from 'node:timers/promises';
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { hasZodFastifySchemaValidationErrors, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { isTerminal } from '../domain/names';
import type { MessageName } from '../domain/messages';
import type { ResearchSnapshot } from '../domain/types';
import { ApiError, isEngineFailure } from './errors';
import { PartAwayError } from '../client/reads';
import type { ResearchService } from './research-service';
import { sessionSettings } from './route-schemas';
import { createCommand } from './service-requests';
import { actionFor, askedNow, endedLine, lastUserText, progressOf, sessionMarker, sessionOf, type ChatMessage } from './chat-conversation';
import { chatBody, chatCompletion, chatModels, openAiError } from './chat-schemas';

export const CHAT_MODEL = 'deep-research';
const FOLLOW_EVERY_MS = 1_000;
const KEEP_ALIVE_MS = 15_000;

/** A refusal of this endpoint's own, in OpenAI's terms. */
class ChatError extends Error {
  constructor(
    readonly statusCode: number,
    readonly openAiType: string,
    readonly openAiCode: string | null,
    message: string,
    readonly param: string | null = null,
  ) {
    super(message);
  }
}

/** Any refusal in OpenAI's shape: {error: {message, type, param, code}}. */
function answerError(err: FastifyError | Error, reply: FastifyReply, log: (err: unknown) => void): FastifyReply {
  const send = (status: number, type: string, code: string | null, message: string, param: string | null = null) => reply.code(status).send({ error: { message, type, param, code } });
  if (err instanceof ChatError) return send(err.statusCode, err.openAiType, err.openAiCode, err.message, err.param);
  if (hasZodFastifySchemaValidationErrors(err)) {
    const first = err.validation[0];
    const param = first.instancePath.split('/').filter(Boolean).join('.') || null;
    return send(400, 'invalid_request_error', 'invalid_value', `${param ?? 'body'}: ${first.message}`, param);
  }
  if (err instanceof ApiError) {
    if (err.statusCode === 401) return send(401, 'invalid_request_error', 'invalid_api_key', err.message);
    const type = err.statusCode === 429 ? 'requests' : err.statusCode >= 500 ? 'server_error' : 'invalid_request_error';
    reply.headers(err.headers);
    return send(err.statusCode, type, err.code.toLowerCase(), err.message, typeof err.details.field === 'string' ? err.details.field : null);
  }
  const status = (err as FastifyError).statusCode;
  if (status === 429) return send(429, 'requests', 'rate_limit_exceeded', err.message);
  if (status && status >= 400 && status < 500) return send(status, 'invalid_request_error', null, err.message);
  if (isEngineFailure(err) || /unreachable|UNAVAILABLE|ECONNREFUSED|DEADLINE_EXCEEDED/i.test(err.message)) {
    log(err);
    return send(503, 'server_error', 'unavailable', 'the research engine (Temporal) did not answer; try again');
  }
  log(err);
  return send(500, 'server_error', null, 'unexpected error');
}

/** Metadata values are strings (OpenAI's rule): numbers, booleans and JSON read as what they say. */
function readValue(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  if (/^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  if (value === 'true' || value === 'false') return value === 'true';
  if (/^[[{]/.test(value)) {
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  }
  return value;
}

export function registerChatRoutes(root: FastifyInstance, service: ResearchService): void {
  const config = service.client.config;
  const chat = config.environment.service.chat;
  const settingsSchema = sessionSettings(config, service.policy);
  const settingNames = new Set(Object.keys(settingsSchema.shape));

  /** deep-research, or deep-research:<provider:model> where the operator allows that model. */
  const modelOf = (name: string): string | undefined => {
    if (name === CHAT_MODEL) return undefined;
    const ref = name.startsWith(`${CHAT_MODEL}:`) ? name.slice(CHAT_MODEL.length + 1) : '';
    if (ref && (chat.models.includes('*') || chat.models.includes(ref))) return ref;
    const offered = [CHAT_MODEL, ...chat.models.filter((m) => m !== '*').map((m) => `${CHAT_MODEL}:${m}`)];
    throw new ChatError(404, 'invalid_request_error', 'model_not_found', `the model ${JSON.stringify(name)} is not offered here (GET /v1/models lists: ${offered.join(', ')})`, 'model');
  };

  /** The session settings a request names: extra body fields and metadata entries named as settings, validated as the API's. */
  const settingsOf = (body: Record<string, unknown>, model: string | undefined): Record<string, unknown> => {
    const metadata = (body.metadata ?? {}) as Record<string, unknown>;
    const given: Record<string, unknown> = { review_final_report: false, ...(model ? { model } : {}) };
    const where: Record<string, string> = {};
    for (const [key, value] of Object.entries(metadata)) if (settingNames.has(key)) ((given[key] = readValue(value)), (where[key] = `metadata.${key}`));
    for (const [key, value] of Object.entries(body)) if (settingNames.has(key) && key !== 'model') ((given[key] = value), (where[key] = key));
    const parsed = settingsSchema.safeParse(given);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const param = [where[String(issue.path[0])] ?? String(issue.path[0]), ...issue.path.slice(1).map(String)].join('.');
      throw new ChatError(400, 'invalid_request_error', 'invalid_value', `${param}: ${issue.message}`, param);
    }
    return parsed.data as Record<string, unknown>;
  };

  /** The conversation's session if this token's user (and the chat's `user`, if it named one) may continue it. */
  const conversationSession = async (owner: string, user: string | undefined, id: string): Promise<void> => {
    const notYours = new ChatError(404, 'invalid_request_error', 'conversation_not_found', `this conversation's research session ${id} is not yours (another user's conversation, or a session that no longer exists): start a new conversation`);
    const s = await service.owned(owner, id).catch((err: unknown) => {
      throw err instanceof ApiError && err.statusCode === 404 ? notYours : err;
    });
    const chatUser = (s.settings as { chat_user?: unknown }).chat_user;
    if (typeof chatUser === 'string' && chatUser !== user) throw notYours;
  };

  /**
   * Writes what the session does until it asks the person something or ends: progress lines (its
   * status messages, the phase and the sources read), then what it asks, or its report.
   */
  const follow = async (owner: string, id: string, out: (text: string) => void, signal: AbortSignal, from: { after: number; answered?: string }): Promise<void> => {
    let after = from.after;
    let said = '';
    let away = '';
    for (;;) {
      if (signal.aborted) return;
      // A session its worker has not taken up yet (or whose worker or Temporal is away) is waited for, and said once.
      const read = await service.liveStates.get(id).catch((err: unknown) => {
        if (!(err instanceof PartAwayError)) throw err;
        if (err.away.message !== away) out(`- waiting: ${(away = err.away.message)}\n`);
        return undefined;
      });
      if (!read) {
        await wait(FOLLOW_EVERY_MS, undefined, { signal }).catch(() => undefined);
        continue;
      }
      const { state } = read;
      if (state.last_event_seq > after) {
        const { events } = await service.client.readEvents(id, after);
        for (const e of events) {
          after = Math.max(after, e.seq);
          const message = (e.data as { message?: unknown }).message;
          if (e.type === 'Status' && typeof message === 'string') out(`- ${message}\n`);
        }
      }
      // The wait just answered is not asked again until the session has moved on from it.
      const stillAnswered = from.answered === state.status && state.last_event_seq <= from.after;
      if (isTerminal(state.status)) return out(`\n${await ending(owner, id, state)}`);
      const asked = stillAnswered ? undefined : askedNow(state);
      const progress = progressOf(state);
      if (progress !== said && !asked) out(`- ${progress}\n`);
      said = progress;
      if (asked) {
        if (state.status === 'awaiting_review') out(`\n${(await service.report(owner, id)).markdown}\n\n`);
        return out(`\n${asked}`);
      }
      await wait(FOLLOW_EVERY_MS, undefined, { signal }).catch(() => undefined);
    }
  };

  const ending = async (owner: string, id: string, state: ResearchSnapshot): Promise<string> => {
    if (state.status !== 'completed') return endedLine(state);
    return (await service.report(owner, id)).markdown;
  };

  const app = root.withTypeProvider<ZodTypeProvider>();
  app.register(async (scope) => {
    scope.setErrorHandler((err: FastifyError, req, reply) => answerError(err, reply, (e) => req.log.warn(e)));
    const typed = scope.withTypeProvider<ZodTypeProvider>();

    typed.get('/v1/models', {
      schema: { tags: ['chat'], operationId: 'listChatModels', summary: 'The models a chat client may name (OpenAI wire format): deep-research, and deep-research:<provider:model> where the operator allows it', response: { 200: chatModels, 401: openAiError, 429: openAiError } },
    }, async () => ({
      object: 'list' as const,
      data: [CHAT_MODEL, ...chat.models.filter((m) => m !== '*').map((m) => `${CHAT_MODEL}:${m}`)].map((id) => ({ id, object: 'model' as const, created: 0, owned_by: 'deep-research' })),
    }));

    typed.post('/v1/chat/completions', {
      bodyLimit: 8 * 1024 * 1024,
      schema: {
        tags: ['chat'],
        operationId: 'createChatCompletion',
        summary:
          'A research session as a chat (OpenAI wire format, stream or not). The first user message starts a session; the reply names it on its first line and gives the clarifying questions or the plan. Each later message answers: approve/yes/go (ja, oui, sí, 好, да …), reject, or anything else to revise the plan, answer the questions or guide the research. Once approved, the reply streams progress and then the report',
        body: chatBody,
        response: {
          200: {
            description: 'the reply: a chat.completion, or with stream: true an event stream of chat.completion.chunk frames (`data: <json>`) ending with `data: [DONE]`',
            content: { 'application/json': { schema: chatCompletion }, 'text/event-stream': { schema: z.string().describe('data: {chat.completion.chunk} frames, then data: [DONE]') } },
          },
          400: openAiError, 401: openAiError, 404: openAiError, 413: openAiError, 415: openAiError, 429: openAiError, 503: openAiError,
        },
      },
    }, async (req, reply) => {
      const body = req.body as z.infer<typeof chatBody> & Record<string, unknown>;
      const owner = req.user;
      const user = body.user ?? undefined;
      const messages = body.messages as ChatMessage[];
      const text = lastUserText(messages);
      const model = modelOf(body.model);
      const settings = settingsOf(body, model);
      const controller = new AbortController();
      reply.raw.once('close', () => controller.abort());
      const parts: string[] = [];
      let write = (t: string) => void parts.push(t);
      const out = (t: string) => write(t);

      // What happens before the reply starts: a refusal here is an HTTP error.
      let id: string | undefined = sessionOf(messages);
      let from: { after: number; answered?: string } = { after: 0 };
      let said: string[] = [];
      if (!id && !text) {
        // Nothing asked yet (a client's empty first turn, a system prompt alone): say how to start, start nothing.
        said = [ASK_TO_START, ''];
      } else if (!id && text) {
        const autoApprove = chat.auto_approve || settings.auto_approve === true;
        const created = await service.create(owner, createCommand({ query: text, settings, auto_approve: autoApprove }));
        id = created.research_id;
        if (user) await service.store.update(id, { settings: { chat_user: user } });
        said = [`Researching: ${text.split('\n')[0].slice(0, 200)}${autoApprove ? ' (the plan runs without waiting for approval)' : ''}`, ''];
      } else if (id) {
        await conversationSession(owner, user, id);
        const { state } = await service.liveStates.get(id).catch((err: unknown) => {
          throw err instanceof PartAwayError ? new ChatError(503, 'server_error', 'unavailable', `${err.message}: nothing was sent; send the message again shortly`) : err;
        });
        const action = actionFor(state.status, state.accepts ?? [], text ?? '', state.plan?.clarifying_questions ?? []);
        from = { after: state.last_event_seq };
        if (action.name === 'follow') said = [`Following the research (${state.status}).`, ''];
        else {
          try {
            await service.send(owner, id, action.name as MessageName, action.args as never);
            from.answered = state.status;
            said = [`${sentLine(action.name)}`, ''];
          } catch (err) {
            if (!(err instanceof ApiError) || err.statusCode >= 500 || err.statusCode === 404) throw err;
            said = [`Could not send that (${err.message}); following the research as it is.`, ''];
          }
        }
      }

      const started = Math.floor(Date.now() / 1000);
      const completionId = `chatcmpl-${randomUUID().replace(/-/g, '').slice(0, 24)}`;
      const modelName = body.model;
      const header = id ? `${sessionMarker(id)}\n\n${said.join('\n')}\n` : `${said.join('\n')}\n`;
      const followSession = (signal: AbortSignal) => (id ? follow(owner, id, out, signal, from) : Promise.resolve());
      if (body.stream) {
        reply.hijack();
        const raw = reply.raw;
        raw.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no' });
        const frame = (delta: Record<string, unknown>, finish: string | null) =>
          `data: ${JSON.stringify({ id: completionId, object: 'chat.completion.chunk', created: started, model: modelName, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
        write = (t) => void (!raw.writableEnded && raw.write(frame({ content: t }, null)));
        raw.write(frame({ role: 'assistant', content: '' }, null));
        const keepAlive = setInterval(() => !raw.writableEnded && raw.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
        try {
          out(header);
          await followSession(controller.signal);
        } catch (err) {
          req.log.warn(err);
          out(`\n\nThe session could not be followed just now (${(err as Error).message}); it runs on: send any message to follow it again.`);
        } finally {
          clearInterval(keepAlive);
        }
        if (raw.writableEnded) return;
        raw.write(frame({}, 'stop'));
        if ((body.stream_options as { include_usage?: boolean } | undefined)?.include_usage) {
          raw.write(`data: ${JSON.stringify({ id: completionId, object: 'chat.completion.chunk', created: started, model: modelName, choices: [], usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 } })}\n\n`);
        }
        raw.end('data: [DONE]\n\n');
        return;
      }
      out(header);
      await followSession(controller.signal);
      return reply.code(200).header('content-type', 'application/json; charset=utf-8').send({
        id: completionId,
        object: 'chat.completion' as const,
        created: started,
        model: modelName,
        choices: [{ index: 0, message: { role: 'assistant' as const, content: parts.join('') }, finish_reason: 'stop' as const }],
        usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
      });
    });
  });
}

const ASK_TO_START = 'Ask a research question to start: the plan comes back here first, and nothing is searched until you approve it.';

function sentLine(name: string): string {
  const lines: Partial<Record<string, string>> = {
    approve: 'Approved: researching now.',
    reject: 'Rejected: the session ends.',
    revisePlan: 'Revising the plan with your note.',
    answerClarifications: 'Answers sent: planning now.',
    reviewReport: 'Review sent.',
    confirm: 'Answer sent.',
    continue: 'Continuing.',
    cancel: 'Cancelling: what is done is kept.',
    guidance: 'Guidance sent: the next phase takes it.',
  };
  return lines[name] ?? `${name} sent.`;
}
