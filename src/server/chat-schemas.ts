// The OpenAI wire format of /v1/models and /v1/chat/completions as this server takes and answers it
// (what OpenAI's clients send; fields this server does not read are accepted and left alone).
import { z } from 'zod';

export const openAiError = z
  .object({
    error: z.object({
      message: z.string(),
      type: z.string().describe('invalid_request_error, requests (rate limited) or server_error'),
      param: z.string().nullable().describe('the field at fault, if one is'),
      code: z.string().nullable().describe('invalid_api_key, model_not_found, conversation_not_found, invalid_value, …'),
    }),
  })
  .describe("a refusal in OpenAI's error shape")
  .meta({ id: 'OpenAiError' });

const contentPart = z.looseObject({ type: z.string().max(64), text: z.string().max(1_000_000).optional() });

export const chatMessage = z.looseObject({
  role: z.string().max(64).describe('system, user, assistant, tool, developer; user messages are read, assistant ones for the session marker'),
  content: z.union([z.string().max(1_000_000), z.array(contentPart).max(100), z.null()]).optional(),
});

export const chatBody = z
  .looseObject({
    model: z.string().min(1).max(300).describe('deep-research, or deep-research:<provider:model> where the operator allows it (GET /v1/models)'),
    messages: z.array(chatMessage).min(1).max(1_000),
    stream: z.boolean().nullish(),
    stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
    user: z.string().max(200).optional().describe('who in the chat is asking: a conversation started with a user is continued only with the same one'),
    metadata: z.record(z.string().max(64), z.string().max(512)).nullish().describe('session settings by name (max_iterations, since, max_sources, …), values as text; other entries are left alone'),
  })
  .describe('OpenAI chat completion request; session settings may also come as extra fields by their names (max_iterations: 2), validated as the API validates settings');

export const chatCompletion = z.object({
  id: z.string(),
  object: z.literal('chat.completion'),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(z.object({ index: z.number().int(), message: z.object({ role: z.literal('assistant'), content: z.string() }), finish_reason: z.literal('stop') })),
  usage: z.object({ prompt_tokens: z.number().int(), completion_tokens: z.number().int(), total_tokens: z.number().int() }),
}).meta({ id: 'ChatCompletion' });

export const chatModels = z.object({
  object: z.literal('list'),
  data: z.array(z.object({ id: z.string(), object: z.literal('model'), created: z.number().int(), owned_by: z.string() })),
}).meta({ id: 'ChatModelList' });
