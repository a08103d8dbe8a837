// What the environment says beyond the file's overrides (read.ts), read once where a process starts
// and carried as `config.environment`: provider keys and the other secrets, the stores, Temporal's
// access, the service's, the workers' and the telemetry's settings. This file and read.ts are the
// only places a variable is named for reading (test/docs-links.test.ts holds docs/configuration.md
// to them). The section never serializes: secrets stay out of files, logs and workflow inputs.
import path from 'node:path';
import { ConfigError } from './errors';
import { MODEL_PROVIDER_DEFAULTS } from './model-catalog';

/** The search providers' key variables, first the one the provider documents, then spellings seen in the wild. */
export const SEARCH_KEY_VARIABLES = {
  tavily: { keyEnv: 'TAVILY_API_KEY', keyEnvAliases: [] },
  brave: { keyEnv: 'BRAVE_API_KEY', keyEnvAliases: ['BRAVE_SEARCH_API_KEY'] },
  exa: { keyEnv: 'EXA_API_KEY', keyEnvAliases: [] },
  google: { keyEnv: 'GOOGLE_SEARCH_API_KEY', keyEnvAliases: ['GOOGLE_CSE_API_KEY'], requiredEnv: 'GOOGLE_SEARCH_ENGINE_ID' },
  'semantic-scholar': { keyEnv: 'SEMANTIC_SCHOLAR_API_KEY', keyEnvAliases: [] },
} as const satisfies Record<string, { keyEnv: string; keyEnvAliases: readonly string[]; requiredEnv?: string }>;

/** The reader services' key variables and the variables naming your own instance (src/providers/fetch/catalog.ts). */
export const READER_VARIABLES = {
  jina: { keyEnv: 'JINA_API_KEY', baseUrlEnv: 'JINA_READER_URL' },
  firecrawl: { keyEnv: 'FIRECRAWL_API_KEY', baseUrlEnv: 'FIRECRAWL_API_URL' },
} as const;

// Names that messages and the web app quote.
export const PAYLOAD_KEYS_ENV = 'DEEP_RESEARCH_PAYLOAD_KEYS';
export const OPERATOR_TOKEN_ENV = 'DEEP_RESEARCH_OPERATOR_TOKEN';
export const CLI_TOKEN_ENV = 'DEEP_RESEARCH_TOKEN';
/** The key for search.embedding_base_url's server, when it is not the embedding provider's own. */
export const EMBEDDING_KEY_ENV = 'EMBEDDING_API_KEY';
/** Set in a worker that runs itself again with its memory settings: the child has them. */
export const MEMORY_SETTINGS_ENV = 'DEEP_RESEARCH_WORKER_MEMORY_SETTINGS';
/** Set in the child that bundles the workflow code: it never starts another. */
export const BUNDLING_ENV = 'DEEP_RESEARCH_BUNDLING';
/** The variables a delivery needs a value of: the webhook signing key and the SMTP server. */
export const DELIVERY_SECRETS = ['WEBHOOK_SECRET', 'SMTP_HOST', 'SMTP_USER', 'SMTP_PASS'] as const;

/** The SMTP server as given; delivery checks it when it sends (src/delivery/email.ts). */
export interface SmtpSettings {
  host?: string;
  port: number;
  secure: boolean;
  user?: string;
  pass?: string;
  from?: string;
}

/** The artifact bucket's access: its region, an S3-compatible endpoint, and keys when given. */
export interface S3Access {
  endpoint?: string;
  region: string;
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

export interface EnvironmentSettings {
  /** Provider keys (and Google's engine id) by the variable that holds them, an alias's value under the main name. */
  keys: Readonly<Record<string, string>>;
  /** What DEEP_RESEARCH_MODEL, SEARCH_PROVIDERS and SEARCH_PROVIDER name: a session is refused rather than run without them. */
  requested: { model?: string; search: string[] };
  temporal: {
    /** No TEMPORAL_ADDRESS: the CLI starts and uses the embedded dev server. */
    embedded: boolean;
    api_key?: string;
    tls?: { cert_file: string; key_file: string };
    /** DEEP_RESEARCH_PAYLOAD_KEYS as given (src/temporal/codec.ts parses it). */
    payload_keys?: string;
    cli_path?: string;
    venv?: string;
    python: string;
    /** The directories of PATH, searched for a `temporal` binary. */
    path: string[];
  };
  stores: {
    database_url?: string;
    artifacts_url?: string;
    s3: S3Access;
  };
  service: {
    operator_token?: string;
    operators: string[];
    local_documents: boolean;
    codec_origins: string[];
    event_streams: { per_user?: number; max?: number; heartbeat_seconds?: number; watchers_per_second?: number };
    /** POST /v1/chat/completions: DEEP_RESEARCH_CHAT_AUTO_APPROVE=1 runs every plan without waiting; DEEP_RESEARCH_CHAT_MODELS the "provider:model" a chat may name as deep-research:<model> ("*": any). */
    chat: { auto_approve: boolean; models: string[] };
  };
  worker: {
    metrics_port?: string;
    health_port?: string;
    adopt_every_seconds: number;
    build_id?: string;
    promote_build: boolean;
    workflow_bundle?: string;
  };
  /** What this process was started with (read by Node and glibc, and by the worker before it runs itself again). */
  process: { node_options: string; malloc_arena_max?: string; has_memory_settings: boolean; bundling: boolean };
  telemetry: { log_level: string; otlp_endpoint?: string; otlp_traces_endpoint?: string; service_name?: string };
  delivery: { smtp: SmtpSettings; webhook_secret?: string };
  cli: { token?: string };
  /**
   * Every product variable this config was read from, by name (undefined: read, and unset): what a
   * child process is given (child-process.ts) and what a worker's fingerprint hashes.
   */
  variables: Readonly<Record<string, string | undefined>>;
}

/** The environment as a config reads it: every variable asked for is noted, with its value. */
export interface NotedEnvironment {
  env: NodeJS.ProcessEnv;
  noted: Record<string, string | undefined>;
}

/** Product variables read through `env` are noted; the process's own (PATH, NODE_OPTIONS, ...) are read from `raw`. */
export function noting(raw: NodeJS.ProcessEnv): NotedEnvironment & { raw: NodeJS.ProcessEnv } {
  const noted: Record<string, string | undefined> = {};
  const env = new Proxy(raw, {
    get: (target, name) => {
      const value = target[name as string];
      if (typeof name === 'string') noted[name] = value;
      return value;
    },
  });
  return { env, noted, raw };
}

const list = (text: string | undefined): string[] => (text ?? '').split(',').map((s) => s.trim()).filter(Boolean);
const given = (text: string | undefined): string | undefined => text?.trim() || undefined;

/** A whole number above 0, or undefined when unset. */
function whole(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new ConfigError(`${name} must be a whole number above 0`);
  return n;
}

/** What the environment section needs of the file's settings: the providers it names, and their key variables. */
interface NamedProviders {
  models: { providers: Record<string, { api_key_env?: string }> };
}

/** The environment section of a config whose file settings (and their overrides) are settled. */
export function environmentOf(config: NamedProviders, { env, noted, raw }: NotedEnvironment & { raw: NodeJS.ProcessEnv }): EnvironmentSettings {
  const settings: EnvironmentSettings = {
    keys: providerKeys(config, env),
    requested: { model: given(env.DEEP_RESEARCH_MODEL), search: [...list(env.SEARCH_PROVIDERS), ...list(env.SEARCH_PROVIDER)] },
    temporal: {
      embedded: !env.TEMPORAL_ADDRESS,
      api_key: given(env.TEMPORAL_API_KEY),
      tls: env.TEMPORAL_TLS_CERT && env.TEMPORAL_TLS_KEY ? { cert_file: env.TEMPORAL_TLS_CERT, key_file: env.TEMPORAL_TLS_KEY } : undefined,
      payload_keys: given(env[PAYLOAD_KEYS_ENV]),
      cli_path: env.TEMPORAL_CLI_PATH || undefined,
      venv: env.DEEP_RESEARCH_VENV || undefined,
      python: raw.PYTHON || 'python3',
      path: (raw.PATH ?? '').split(path.delimiter).filter(Boolean),
    },
    stores: { database_url: given(env.DATABASE_URL), artifacts_url: given(env.ARTIFACTS_URL), s3: s3Access(env) },
    service: {
      operator_token: given(env[OPERATOR_TOKEN_ENV]),
      operators: list(env.DEEP_RESEARCH_OPERATORS),
      local_documents: env.DEEP_RESEARCH_SERVICE_LOCAL_DOCS === '1',
      codec_origins: list(env.DEEP_RESEARCH_CODEC_ORIGINS),
      event_streams: {
        per_user: whole(env, 'EVENT_STREAMS_PER_USER'),
        max: whole(env, 'EVENT_STREAMS_MAX'),
        heartbeat_seconds: whole(env, 'EVENT_STREAM_HEARTBEAT_SECONDS'),
        watchers_per_second: whole(env, 'EVENT_WATCHERS_PER_SECOND'),
      },
      chat: { auto_approve: env.DEEP_RESEARCH_CHAT_AUTO_APPROVE === '1', models: list(env.DEEP_RESEARCH_CHAT_MODELS) },
    },
    worker: {
      metrics_port: given(env.DEEP_RESEARCH_METRICS_PORT),
      health_port: given(env.DEEP_RESEARCH_HEALTH_PORT),
      adopt_every_seconds: Number(env.DEEP_RESEARCH_ADOPT_EVERY_SECONDS ?? 60),
      build_id: given(env.DEEP_RESEARCH_BUILD_ID),
      promote_build: env.DEEP_RESEARCH_PROMOTE_BUILD !== '0',
      workflow_bundle: env.DEEP_RESEARCH_WORKFLOW_BUNDLE || undefined,
    },
    process: { node_options: raw.NODE_OPTIONS ?? '', malloc_arena_max: raw.MALLOC_ARENA_MAX || undefined, has_memory_settings: !!raw[MEMORY_SETTINGS_ENV], bundling: !!raw[BUNDLING_ENV] },
    telemetry: {
      log_level: (env.LOG_LEVEL ?? 'info').toLowerCase(),
      otlp_endpoint: given(env.OTEL_EXPORTER_OTLP_ENDPOINT),
      otlp_traces_endpoint: given(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT),
      service_name: given(env.OTEL_SERVICE_NAME),
    },
    delivery: { smtp: smtp(env), webhook_secret: env.WEBHOOK_SECRET || undefined },
    cli: { token: given(env[CLI_TOKEN_ENV]) },
    variables: { ...noted, ...sdkVariables(raw) },
  };
  // Never written out: JSON of a config (a log line, a file) leaves this section out.
  Object.defineProperty(settings, 'toJSON', { value: () => undefined, enumerable: false });
  return settings;
}

/** Every key variable a provider of this config names, and the search providers' (an alias's value under the main name). */
function providerKeys(config: NamedProviders, env: NodeJS.ProcessEnv): Record<string, string> {
  const keys: Record<string, string> = {};
  for (const provider of [...Object.values(MODEL_PROVIDER_DEFAULTS), ...Object.values(config.models.providers)]) {
    const value = provider.api_key_env ? env[provider.api_key_env] : undefined;
    if (provider.api_key_env && value) keys[provider.api_key_env] = value;
  }
  for (const search of Object.values(SEARCH_KEY_VARIABLES)) {
    const value = [search.keyEnv, ...search.keyEnvAliases].map((name) => env[name]?.trim()).find(Boolean);
    if (value) keys[search.keyEnv] = value;
    const required = 'requiredEnv' in search ? given(env[search.requiredEnv]) : undefined;
    if (required && 'requiredEnv' in search) keys[search.requiredEnv] = required;
  }
  for (const reader of Object.values(READER_VARIABLES)) {
    for (const name of [reader.keyEnv, reader.baseUrlEnv]) {
      const value = given(env[name]);
      if (value) keys[name] = value;
    }
  }
  const embeddingKey = given(env[EMBEDDING_KEY_ENV]);
  if (embeddingKey) keys[EMBEDDING_KEY_ENV] = embeddingKey;
  return keys;
}

/** The artifact bucket's region, an S3-compatible endpoint and keys when given (else the AWS SDK's own defaults). */
function s3Access(env: NodeJS.ProcessEnv): S3Access {
  const accessKeyId = env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
  const sessionToken = env.AWS_SESSION_TOKEN;
  return {
    endpoint: env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL || undefined,
    region: env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1',
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) } : undefined,
  };
}

function smtp(env: NodeJS.ProcessEnv): SmtpSettings {
  const host = given(env.SMTP_HOST);
  const port = Number(env.SMTP_PORT ?? 587);
  return {
    host,
    port,
    secure: env.SMTP_SECURE ? /^(1|true|yes)$/i.test(env.SMTP_SECURE) : port === 465,
    user: env.SMTP_USER || undefined,
    pass: env.SMTP_PASS || undefined,
    from: given(env.SMTP_FROM),
  };
}

/** Variables the AWS and OpenTelemetry SDKs read for themselves (a profile, export headers): a child gets them as they are. */
function sdkVariables(raw: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(raw).filter((entry): entry is [string, string] => /^(AWS|OTEL)_/.test(entry[0]) && entry[1] !== undefined));
}
