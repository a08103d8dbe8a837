// A scripted Gemini API (generativelanguage v1beta) on loopback: streamGenerateContent?alt=sse and
// generateContent, the x-goog-api-key header checked. A forced function (toolConfig mode ANY with
// allowedFunctionNames) is answered with a functionCall part; anything else with text parts.
import type { Recorder } from './recorder';
import {
  EventStream,
  nextAnswer,
  payloadOf,
  pieces,
  renderAnswer,
  retryHeaders,
  sleep,
  startFakeServer,
  usageFor,
  type CapturedRequest,
  type Exchange,
  type ProviderScript,
  type ScriptedAnswer,
} from './model-script';

export interface FakeGemini {
  /** The base URL for the SDK (…/v1beta). */
  url: string;
  script: ProviderScript;
  requests: CapturedRequest[];
  close(): Promise<void>;
}

interface GenerateRequest {
  toolConfig?: { functionCallingConfig?: { mode?: string; allowedFunctionNames?: string[] } };
}

const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

const errorBody = (code: number, message: string, status?: string) => ({ error: { code, message, status: status ?? STATUS_NAMES[code] ?? 'UNKNOWN' } });

const ROUTE = /^\/v1beta\/models\/([^/:]+):(streamGenerateContent|generateContent)(\?.*)?$/;

export async function startGemini(recorder: Recorder, script: ProviderScript = {}): Promise<FakeGemini> {
  const server = await startFakeServer(recorder, async (exchange) => {
    const { req, sendJson } = exchange;
    const route = ROUTE.exec(req.url ?? '');
    if (!route || req.method !== 'POST') return sendJson(404, errorBody(404, `${req.method} ${req.url} not found`));
    const key = req.headers['x-goog-api-key'];
    if (!key) return sendJson(403, errorBody(403, "Method doesn't allow unregistered callers (callers without established identity)."));
    // Gemini answers a wrong key with 400 INVALID_ARGUMENT and the reason API_KEY_INVALID.
    if (script.apiKey && key !== script.apiKey) {
      const details = [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' }];
      return sendJson(400, { error: { ...errorBody(400, 'API key not valid. Please pass a valid API key.').error, details } });
    }
    const failure = script.failures?.shift();
    if (failure) {
      const body = failure.body ?? errorBody(failure.status, failure.message ?? `scripted ${failure.status}`, failure.type);
      return sendJson(failure.status, body, retryHeaders(failure));
    }
    const answer = nextAnswer(script);
    if (!answer) return sendJson(400, errorBody(400, 'the fake has no scripted answer'));
    const [, model, method] = route;
    const body = exchange.body as GenerateRequest;
    const calling = body.toolConfig?.functionCallingConfig;
    const functionName = calling?.mode === 'ANY' ? calling.allowedFunctionNames?.[0] : undefined;
    if (script.delayMs) await sleep(script.delayMs);
    if (answer.blocked) {
      const blocked = { promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: usageMetadata(usageFor(script, exchange.raw, '')), modelVersion: model };
      if (method === 'generateContent') return sendJson(200, blocked);
      const stream = new EventStream(exchange);
      await stream.send(blocked);
      return stream.end();
    }
    const streaming = method === 'streamGenerateContent' && (req.url ?? '').includes('alt=sse');
    if (streaming) return streamContent(exchange, model, answer, functionName, script);
    const written = functionName ? payloadOf(answer) : renderAnswer(answer);
    sendJson(200, chunk(model, functionName ? [functionCall(functionName, answer)] : [{ text: written }], 'STOP', usageMetadata(usageFor(script, exchange.raw, written))));
  });
  return { url: `${server.url}/v1beta`, script, requests: server.requests, close: server.close };
}

function chunk(model: string, parts: unknown[], finishReason?: string, usage?: unknown) {
  return {
    candidates: [{ content: { parts, role: 'model' }, index: 0, ...(finishReason ? { finishReason } : {}) }],
    ...(usage ? { usageMetadata: usage } : {}),
    modelVersion: model,
    responseId: 'fake-response',
  };
}

// Gemini sends function arguments as an object, so a malformed payload can only arrive as an empty one.
function functionCall(name: string, answer: ScriptedAnswer) {
  let args: unknown = {};
  try {
    args = JSON.parse(payloadOf({ ...answer, fence: false }));
  } catch {
    // keep the empty object
  }
  return { functionCall: { name, args } };
}

function usageMetadata(usage: ReturnType<typeof usageFor>) {
  return {
    promptTokenCount: usage.input,
    candidatesTokenCount: usage.output - usage.reasoning,
    totalTokenCount: usage.input + usage.output,
    ...(usage.cached ? { cachedContentTokenCount: usage.cached } : {}),
    ...(usage.reasoning ? { thoughtsTokenCount: usage.reasoning } : {}),
  };
}

async function streamContent(exchange: Exchange, model: string, answer: ScriptedAnswer, functionName: string | undefined, script: ProviderScript) {
  const stream = new EventStream(exchange, script.chunkDelayMs);
  const written = functionName ? payloadOf(answer) : renderAnswer(answer);
  const usage = usageMetadata(usageFor(script, exchange.raw, written));
  if (functionName) {
    await stream.send(chunk(model, [functionCall(functionName, answer)], 'STOP', usage));
  } else {
    const texts = written ? pieces(written) : [''];
    for (const [i, text] of texts.entries()) {
      const last = i === texts.length - 1;
      await stream.send(chunk(model, [{ text }], last ? 'STOP' : undefined, last ? usage : undefined));
    }
  }
  stream.end();
}
