// How the model servers people run at home answer what they cannot do, as the real ones do (their
// status, body and wording), for the loopback model fake (test/harness/model.ts, ModelScript.server):
// - llama-cpp-python 0.3 (its pydantic request model): response_format json_schema is a 500 whose
//   message is the validation error followed by the server's Python traceback; json_object with a
//   schema is grammar-constrained.
// - llama-server (llama.cpp, before json_schema support): a 500 "response_format type must be one of
//   "text" or "json_object"".
// - vLLM 0.4: a 400 BadRequestError carrying pydantic's literal_error; guided_json is its schema field.
// - Ollama (OpenAI-compatible endpoint, before structured outputs): a 400 naming the format.
// - LM Studio, a model without structured-output support: json_schema refused and json_object never
//   accepted ("must be 'json_schema' or 'text'"); a forced tool call works.
export type LocalServerKind = 'llama-cpp-python' | 'llama-server' | 'vllm' | 'ollama' | 'lmstudio';

export interface LocalServerRefusal {
  status: number;
  body: unknown;
}

interface ChatShape {
  response_format?: { type?: string };
  tools?: unknown[];
}

const LLAMA_CPP_PYTHON_TRACEBACK = `Traceback (most recent call last):
  File "/usr/lib/python3/site-packages/llama_cpp/server/errors.py", line 171, in custom_route_handler
    response = await original_route_handler(request)
  File "/usr/lib/python3/site-packages/fastapi/routing.py", line 301, in app
    raw_response = await run_endpoint_function(
  File "/usr/lib/python3/site-packages/llama_cpp/server/app.py", line 376, in create_chat_completion
    body: CreateChatCompletionRequest = Body(
pydantic_core._pydantic_core.ValidationError: 1 validation error for CreateChatCompletionRequest
`;

/** The refusal a server of this kind answers to this chat request; undefined when it serves it. */
export function localServerRefusal(kind: LocalServerKind, body: ChatShape): LocalServerRefusal | undefined {
  const type = body.response_format?.type;
  switch (kind) {
    case 'llama-cpp-python':
      if (type !== 'json_schema') return undefined;
      return {
        status: 500,
        body: {
          error: {
            message: `1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': "Input should be 'text' or 'json_object'", 'input': 'json_schema', 'ctx': {'expected': "'text' or 'json_object'"}}\n\n${LLAMA_CPP_PYTHON_TRACEBACK}`,
            type: 'internal_server_error',
            param: null,
            code: null,
          },
        },
      };
    case 'llama-server':
      if (type !== 'json_schema') return undefined;
      return { status: 500, body: { error: { code: 500, message: 'response_format type must be one of "text" or "json_object", but got: json_schema', type: 'server_error' } } };
    case 'vllm':
      if (type !== 'json_schema') return undefined;
      return {
        status: 400,
        body: {
          object: 'error',
          message: `[{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': "Input should be 'text' or 'json_object'", 'input': 'json_schema', 'ctx': {'expected': "'text' or 'json_object'"}}]`,
          type: 'BadRequestError',
          param: null,
          code: 400,
        },
      };
    case 'ollama':
      if (type !== 'json_schema') return undefined;
      return { status: 400, body: { error: { message: `invalid response_format type "json_schema": expected "json_object" or "text"`, type: 'invalid_request_error', param: null, code: null } } };
    case 'lmstudio':
      if (type === 'json_schema') return { status: 400, body: { error: 'Model does not support structured output (response_format.json_schema): load a model with grammar support' } };
      if (type && type !== 'text') return { status: 400, body: { error: "'response_format.type' must be 'json_schema' or 'text'" } };
      return undefined;
  }
}

/**
 * How a server of this kind says the context window it runs the model with (`window` tokens), as
 * the real one does: llama-server's /props, vLLM's max_model_len in /v1/models, Ollama's /api/ps
 * and /api/show, LM Studio's /api/v0/models; llama-cpp-python says it nowhere but in its refusal
 * of a longer prompt (its /openapi.json names it). Undefined: the request is not one of these.
 */
export function localServerInfo(kind: LocalServerKind, window: number, method: string, url: string, model: string): LocalServerRefusal | undefined {
  if (kind === 'lmstudio' && url.startsWith('/api/v0/models/')) model = decodeURIComponent(url.slice('/api/v0/models/'.length));
  const route = `${method} ${url.split('?')[0]}`;
  switch (kind) {
    case 'llama-cpp-python':
      if (route === 'GET /openapi.json') return { status: 200, body: { openapi: '3.1.0', info: { title: '🦙 llama.cpp Python API', version: '0.3.16' }, paths: {} } };
      if (route === 'GET /v1/models') return { status: 200, body: { object: 'list', data: [{ id: model, object: 'model', owned_by: 'me', permissions: [] }] } };
      return undefined;
    case 'llama-server':
      if (route === 'GET /props') return { status: 200, body: { default_generation_settings: { n_ctx: window, params: { n_predict: -1 } }, total_slots: 1, chat_template: '' } };
      return undefined;
    case 'vllm':
      if (route === 'GET /v1/models') return { status: 200, body: { object: 'list', data: [{ id: model, object: 'model', owned_by: 'vllm', root: model, max_model_len: window }] } };
      return undefined;
    case 'ollama':
      if (route === 'GET /api/ps') return { status: 200, body: { models: [] } };
      if (route === 'POST /api/show') return { status: 200, body: { parameters: `num_ctx                        ${window}\nstop                           "<end_of_turn>"`, model_info: { 'general.architecture': 'gemma3', 'gemma3.context_length': 131072 } } };
      return undefined;
    case 'lmstudio':
      if (route.startsWith('GET /api/v0/models/')) return { status: 200, body: { id: model, object: 'model', type: 'llm', state: 'loaded', max_context_length: 131072, loaded_context_length: window } };
      return undefined;
  }
}

/** The refusal of a prompt of `promptTokens` past the window, as each server words it (Ollama and LM Studio cut the prompt instead). */
export function localServerOverflow(kind: LocalServerKind, window: number, promptTokens: number): LocalServerRefusal | undefined {
  if (promptTokens < window) return undefined;
  switch (kind) {
    case 'llama-cpp-python':
    case 'vllm':
      return {
        status: 400,
        body: {
          error: {
            message: `This model's maximum context length is ${window} tokens. However, you requested ${promptTokens + 1} tokens (${promptTokens} in the messages, 1 in the completion). Please reduce the length of the messages or completion.`,
            type: 'invalid_request_error',
            param: 'messages',
            code: 'context_length_exceeded',
          },
        },
      };
    case 'llama-server':
      return { status: 400, body: { error: { code: 400, message: 'the request exceeds the available context size, try increasing it', type: 'exceed_context_size_error', n_prompt_tokens: promptTokens, n_ctx: window } } };
    default:
      return undefined;
  }
}
