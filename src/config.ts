import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseEnvKeys } from './auth/keys';
import { redact, registerSecrets, uriPassword } from './redact';
import { OTLP_PROTOCOLS, type OtlpProtocol } from './observability/otlp-encoding';

/**
 * The only reader of the environment. Every variable is declared once in `VARIABLES` with a description,
 * a default where one is safe, and a parser; `loadConfig` validates them all and fails with a message
 * naming the variable and the expected form.
 */

export type EmbeddingsProviderName = 'openai' | 'onnx' | 'local' | 'hash';
export type VectorSearchMode = 'memory' | 'atlas';
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
/** OTEL_TRACES_SAMPLER's values of the OpenTelemetry environment specification that the SDK has. */
export const TRACES_SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;
export type TracesSampler = (typeof TRACES_SAMPLERS)[number];

export interface Config {
  port: number;
  host: string;
  mongodbUri: string | undefined;
  mongodbDb: string | undefined;
  dbTimeoutMs: number;
  dataDir: string;
  engineCompactAfterBytes: number;
  engineChangeLogEvents: number;
  engineTtlIntervalMs: number;
  embeddingsProvider: EmbeddingsProviderName;
  openaiApiKey: string | undefined;
  openaiBaseUrl: string | undefined;
  embeddingModel: string | undefined;
  embeddingModelDir: string | undefined;
  embeddingPooling: 'mean' | 'cls' | undefined;
  embeddingMaxTokens: number | undefined;
  embeddingQueryPrefix: string;
  embeddingDocumentPrefix: string;
  embeddingDimensions: number | undefined;
  embeddingBatchSize: number;
  embeddingTimeoutMs: number;
  embeddingMaxRetries: number;
  enrichActions: boolean;
  chatModel: string;
  vectorSearch: VectorSearchMode;
  searchPollMs: number;
  searchFollow: boolean;
  messageIndex: boolean;
  metadataIndexFields: string[];
  apiKeys: string[];
  allowAnonymous: boolean;
  introspection: boolean;
  playground: boolean;
  corsOrigins: string[];
  rateLimitPerMin: number;
  logLevel: LogLevel;
  otlpEndpoint: string | undefined;
  otlpProtocol: OtlpProtocol;
  otlpHeaders: Record<string, string>;
  serviceName: string;
  tracesSampler: TracesSampler;
  tracesSamplerRatio: number;
  shutdownTimeoutMs: number;
  maxQueryTokens: number;
  maxQueryDepth: number;
  maxAliases: number;
  maxQueryCost: number;
  maxCompiledQueryChars: number;
  idempotencyTtlHours: number;
  retentionMessages: Retention | undefined;
  retentionExperiences: Retention | undefined;
  retentionTasks: Retention | undefined;
  retentionInsights: Retention | undefined;
  dedupeThreshold: number;
  maxMetadataKeys: number;
  requestTimeoutMs: number;
  hindsightUrl: string | undefined;
  hindsightApiKey: string | undefined;
}

/** How long a collection keeps its records (a RETENTION_* variable): as written, and in seconds. */
export interface Retention {
  /** The duration as configured, normalised (`90d`). */
  text: string;
  seconds: number;
}

/** Seconds per unit of a duration (`2w`, `90d`, `12h`, `30m`, `45s`). */
const DURATION_UNITS: Record<string, number> = { w: 604_800, d: 86_400, h: 3_600, m: 60, s: 1 };
/** A TTL index's expireAfterSeconds is a signed 32-bit integer in mongod (about 68 years). */
export const MAX_RETENTION_SECONDS = 2_147_483_647;
const DURATION_EXPECTED = `a duration above 0 such as 90d, 2w, 12h, 30m or 45s (at most ${MAX_RETENTION_SECONDS} seconds)`;

/** A RETENTION_* value: unset or empty is undefined (kept for ever); anything but a positive duration is refused. */
function retention(name: string, raw: string | undefined): Retention | undefined {
  if (!present(raw)) return undefined;
  const match = /^(\d{1,10})([wdhms])$/i.exec(raw.trim());
  const seconds = match ? Number(match[1]) * DURATION_UNITS[match[2].toLowerCase()] : NaN;
  if (!match || !(seconds > 0) || seconds > MAX_RETENTION_SECONDS) throw new ConfigError(name, DURATION_EXPECTED, raw);
  return { text: `${Number(match[1])}${match[2].toLowerCase()}`, seconds };
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    readonly expected: string,
    readonly value: string,
  ) {
    super(`Invalid ${variable}=${shownValue(variable, value)}: expected ${expected}`);
    this.name = 'ConfigError';
  }
}

/** How a ConfigError shows the value: a secret variable's not at all (it failed to parse, so it was never registered). */
function shownValue(variable: string, value: string): string {
  const secret = VARIABLES.some((known) => known.name === variable && 'secret' in known);
  return secret ? '(hidden: a secret)' : JSON.stringify(redact(value));
}

interface Variable<K extends keyof Config> {
  name: string;
  key: K;
  description: string;
  /** A secret (key, credentials, private endpoint): never shown in replies or logs (redact.ts). */
  secret?: true;
  /** Shown in .env.example and the README; undefined means "unset". */
  defaultText?: string;
  expected: string;
  parse(raw: string | undefined, env: Env): Config[K];
}

type Env = Record<string, string | undefined>;

function present(raw: string | undefined): raw is string {
  return raw !== undefined && raw.trim() !== '';
}

function integer(min: number, max: number, fallback: number | undefined) {
  return (name: string, raw: string | undefined): number => {
    if (!present(raw)) {
      if (fallback === undefined) throw new Error('unreachable: required integer without default');
      return fallback;
    }
    const value = Number(raw.trim());
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new ConfigError(name, `an integer from ${min} to ${max}`, raw);
    }
    return value;
  };
}

function oneOf<T extends string>(name: string, raw: string, allowed: readonly T[]): T {
  const value = raw.trim().toLowerCase() as T;
  if (!allowed.includes(value)) throw new ConfigError(name, `one of ${allowed.join(', ')}`, raw);
  return value;
}

function list(raw: string | undefined): string[] {
  return present(raw)
    ? raw
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean)
    : [];
}

/** True for an origin as browsers send it: `scheme://host[:port]`, no path, query or credentials. */
function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value;
  } catch {
    return false;
  }
}

function boolean(name: string, raw: string | undefined, fallback: boolean): boolean {
  if (!present(raw)) return fallback;
  const value = oneOf(name, raw, ['true', 'false', '1', '0'] as const);
  return value === 'true' || value === '1';
}

function optional(raw: string | undefined): string | undefined {
  return present(raw) ? raw.trim() : undefined;
}

function decodedOrNull(value: string): string | null {
  try {
    return decodeURIComponent(value);
  } catch {
    return null;
  }
}

function define<K extends keyof Config>(variable: Variable<K>): Variable<K> {
  return variable;
}

/** Every environment variable Hindsight reads, in the order they are documented. */
export const VARIABLES = [
  define({
    name: 'PORT',
    key: 'port',
    description: 'HTTP port of the GraphQL API.',
    defaultText: '4000',
    expected: 'an integer from 0 to 65535',
    parse: (raw) => integer(0, 65535, 4000)('PORT', raw),
  }),
  define({
    name: 'HOST',
    key: 'host',
    description:
      'Interface the API listens on (127.0.0.1 for this machine only, 0.0.0.0 for all: needs keys or ALLOW_ANONYMOUS).',
    defaultText: '127.0.0.1',
    expected: 'a host name or IP address',
    parse: (raw) => optional(raw) ?? '127.0.0.1',
  }),
  define({
    name: 'MONGODB_URI',
    secret: true,
    key: 'mongodbUri',
    description:
      'MongoDB connection string (Atlas or self-hosted). When unset, Hindsight starts its embedded engine under DATA_DIR.',
    expected: 'a mongodb:// or mongodb+srv:// URI',
    parse: (raw) => {
      const value = optional(raw);
      if (value !== undefined && !/^mongodb(\+srv)?:\/\/.+/.test(value)) {
        throw new ConfigError('MONGODB_URI', 'a mongodb:// or mongodb+srv:// URI', raw ?? '');
      }
      return value;
    },
  }),
  define({
    name: 'MONGODB_DB',
    key: 'mongodbDb',
    description: "Database name when the URI has no path (the URI's path wins).",
    defaultText: 'hindsight',
    expected: 'a database name without / \\ . " $ or spaces, at most 63 characters',
    parse: (raw) => {
      const value = optional(raw);
      if (value !== undefined && !/^[^/\\. "$]{1,63}$/.test(value)) {
        throw new ConfigError(
          'MONGODB_DB',
          'a database name without / \\ . " $ or spaces, at most 63 characters',
          raw ?? '',
        );
      }
      return value;
    },
  }),
  define({
    name: 'DB_TIMEOUT_MS',
    key: 'dbTimeoutMs',
    description:
      'How long a request waits for an unreachable database (server selection, connecting) before it fails with SERVICE_UNAVAILABLE.',
    defaultText: '2000',
    expected: 'an integer from 100 to 600000',
    parse: (raw) => integer(100, 600000, 2000)('DB_TIMEOUT_MS', raw),
  }),
  define({
    name: 'DATA_DIR',
    key: 'dataDir',
    description:
      'Directory of the embedded engine (journal, snapshots, the spill file of its vectors) and of the persisted vector index.',
    defaultText: './data',
    expected: 'a directory path',
    parse: (raw) => path.resolve(optional(raw) ?? './data'),
  }),
  define({
    name: 'ENGINE_COMPACT_AFTER_BYTES',
    key: 'engineCompactAfterBytes',
    description:
      'Journal size after which the embedded engine writes a snapshot and starts a new journal (at least a quarter of the last snapshot).',
    defaultText: '67108864',
    expected: 'an integer from 1024 to 68719476736',
    parse: (raw) => integer(1024, 64 * 1024 ** 3, 64 * 1024 ** 2)('ENGINE_COMPACT_AFTER_BYTES', raw),
  }),
  define({
    name: 'ENGINE_CHANGE_LOG_EVENTS',
    key: 'engineChangeLogEvents',
    description:
      'Change events the embedded engine keeps (across restarts) for change streams to resume from; the search index catches up through them.',
    defaultText: '1000000',
    expected: 'an integer from 1 to 100000000',
    parse: (raw) => integer(1, 100_000_000, 1_000_000)('ENGINE_CHANGE_LOG_EVENTS', raw),
  }),
  define({
    name: 'ENGINE_TTL_INTERVAL_MS',
    key: 'engineTtlIntervalMs',
    description:
      "How often the embedded engine deletes the documents its TTL indexes expire (retention, expiresAt); mongod's TTL monitor runs every 60 s.",
    defaultText: '60000',
    expected: 'an integer from 10 to 86400000',
    parse: (raw) => integer(10, 86_400_000, 60_000)('ENGINE_TTL_INTERVAL_MS', raw),
  }),
  define({
    name: 'EMBEDDINGS_PROVIDER',
    key: 'embeddingsProvider',
    description:
      'Embedding provider: openai (any OpenAI-compatible API), onnx (an ONNX model folder, EMBEDDING_MODEL_DIR), local (offline sentence model), hash (lexical, for tests). Default: onnx when EMBEDDING_MODEL_DIR is set, else openai when OPENAI_API_KEY is, else local.',
    expected: 'one of openai, onnx, local, hash',
    parse: (raw, env) =>
      present(raw)
        ? oneOf('EMBEDDINGS_PROVIDER', raw, ['openai', 'onnx', 'local', 'hash'] as const)
        : present(env.EMBEDDING_MODEL_DIR)
          ? 'onnx'
          : present(env.OPENAI_API_KEY)
            ? 'openai'
            : 'local',
  }),
  define({
    name: 'OPENAI_API_KEY',
    secret: true,
    key: 'openaiApiKey',
    description:
      'API key of the OpenAI-compatible endpoint (any non-empty value for servers that need none, e.g. Ollama).',
    expected: 'a string',
    parse: (raw) => optional(raw),
  }),
  define({
    name: 'OPENAI_BASE_URL',
    secret: true,
    key: 'openaiBaseUrl',
    description:
      'Base URL of an OpenAI-compatible API, e.g. http://localhost:11434/v1 for Ollama. Unset: api.openai.com.',
    expected: 'an http:// or https:// URL',
    parse: (raw) => {
      const value = optional(raw);
      if (value !== undefined && !/^https?:\/\/.+/.test(value)) {
        throw new ConfigError('OPENAI_BASE_URL', 'an http:// or https:// URL', raw ?? '');
      }
      return value;
    },
  }),
  define({
    name: 'EMBEDDING_MODEL',
    key: 'embeddingModel',
    description:
      'Embedding model name for the openai provider (default text-embedding-3-small); for onnx, the name recorded with its vectors (default: the folder name); ignored by local and hash.',
    expected: 'a model name',
    parse: (raw) => optional(raw),
  }),
  define({
    name: 'EMBEDDING_MODEL_DIR',
    key: 'embeddingModelDir',
    description:
      'The onnx provider: a sentence-transformers-style model folder (model.onnx or onnx/model.onnx, tokenizer.json, config.json, optional 1_Pooling/config.json), run in process on the CPU.',
    expected: 'a folder path',
    parse: (raw) => optional(raw),
  }),
  define({
    name: 'EMBEDDING_POOLING',
    key: 'embeddingPooling',
    description:
      "The onnx provider's pooling of token states: mean or cls. Default: what the folder's 1_Pooling/config.json says, else mean.",
    expected: 'one of mean, cls',
    parse: (raw) => (present(raw) ? oneOf('EMBEDDING_POOLING', raw, ['mean', 'cls'] as const) : undefined),
  }),
  define({
    name: 'EMBEDDING_MAX_TOKENS',
    key: 'embeddingMaxTokens',
    description:
      "The onnx provider cuts a text to this many tokens when it is below the model's maximum sequence length (long-context models: a long sequence costs time and memory quadratically). Default: the model's maximum.",
    expected: 'an integer from 8 to 1000000',
    parse: (raw) => (present(raw) ? integer(8, 1_000_000, undefined)('EMBEDDING_MAX_TOKENS', raw) : undefined),
  }),
  define({
    name: 'EMBEDDING_QUERY_PREFIX',
    key: 'embeddingQueryPrefix',
    description:
      'Put before a search text by the onnx and openai providers, for models trained with one (e5: "query: ", nomic-embed: "search_query: "). Kept as written, spaces included.',
    expected: 'a string',
    parse: (raw) => raw ?? '',
  }),
  define({
    name: 'EMBEDDING_DOCUMENT_PREFIX',
    key: 'embeddingDocumentPrefix',
    description:
      'Put before a stored text by the onnx and openai providers (e5: "passage: ", nomic-embed: "search_document: "); recorded with the vectors, so changing it asks for reembed. Kept as written.',
    expected: 'a string',
    parse: (raw) => raw ?? '',
  }),
  define({
    name: 'EMBEDDING_DIMENSIONS',
    key: 'embeddingDimensions',
    description:
      'Vector size: requested from the openai provider when set (models that support it); the hash provider uses it (default 384).',
    expected: 'an integer from 8 to 8192',
    parse: (raw) => (present(raw) ? integer(8, 8192, undefined)('EMBEDDING_DIMENSIONS', raw) : undefined),
  }),
  define({
    name: 'EMBEDDING_BATCH_SIZE',
    key: 'embeddingBatchSize',
    description: 'Texts per embedding request.',
    defaultText: '64',
    expected: 'an integer from 1 to 2048',
    parse: (raw) => integer(1, 2048, 64)('EMBEDDING_BATCH_SIZE', raw),
  }),
  define({
    name: 'EMBEDDING_TIMEOUT_MS',
    key: 'embeddingTimeoutMs',
    description: 'Timeout of one embedding request.',
    defaultText: '30000',
    expected: 'an integer from 100 to 600000',
    parse: (raw) => integer(100, 600000, 30000)('EMBEDDING_TIMEOUT_MS', raw),
  }),
  define({
    name: 'EMBEDDING_MAX_RETRIES',
    key: 'embeddingMaxRetries',
    description: 'Retries (with exponential backoff) on 429 and 5xx answers and network errors.',
    defaultText: '3',
    expected: 'an integer from 0 to 10',
    parse: (raw) => integer(0, 10, 3)('EMBEDDING_MAX_RETRIES', raw),
  }),
  define({
    name: 'ENRICH_ACTIONS',
    key: 'enrichActions',
    description:
      "Fill the compression fields of recorded agent actions (insights, learning, relevance, synthesis) in the background with the OpenAI-compatible endpoint's chat API; needs OPENAI_API_KEY.",
    defaultText: 'false',
    expected: 'one of true, false, 1, 0',
    parse: (raw) => boolean('ENRICH_ACTIONS', raw, false),
  }),
  define({
    name: 'CHAT_MODEL',
    key: 'chatModel',
    description: 'Chat model that ENRICH_ACTIONS uses.',
    defaultText: 'gpt-4o-mini',
    expected: 'a model name',
    parse: (raw) => optional(raw) ?? 'gpt-4o-mini',
  }),
  define({
    name: 'VECTOR_SEARCH',
    key: 'vectorSearch',
    description:
      'Vector search backend: memory (in-process HNSW index, persisted under DATA_DIR) or atlas ($vectorSearch).',
    defaultText: 'memory',
    expected: 'one of memory, atlas',
    parse: (raw) => (present(raw) ? oneOf('VECTOR_SEARCH', raw, ['memory', 'atlas'] as const) : 'memory'),
  }),
  define({
    name: 'SEARCH_POLL_MS',
    key: 'searchPollMs',
    description:
      'Where the database has no change streams (a standalone mongod): how often the in-process search index compares each collection with MongoDB to see other processes’ writes; 0: never.',
    defaultText: '10000',
    expected: 'an integer from 0 to 86400000',
    parse: (raw) => integer(0, 86_400_000, 10_000)('SEARCH_POLL_MS', raw),
  }),
  define({
    name: 'SEARCH_FOLLOW',
    key: 'searchFollow',
    description:
      'Follow other processes’ writes into the in-process search index while the server runs (false: only at start).',
    defaultText: 'true',
    expected: 'true or false',
    parse: (raw) => boolean('SEARCH_FOLLOW', raw, true),
  }),
  define({
    name: 'MESSAGE_INDEX',
    key: 'messageIndex',
    description:
      "Keep the message index (message_index) that searchMessages and recall's MESSAGES read, current on every write to sessions. Off by default: with it on, each message is stored and searched again (memory, start time and append latency: see docs/performance.md); off, searchMessages answers SERVICE_UNAVAILABLE.",
    defaultText: 'false',
    expected: 'true or false',
    parse: (raw) => boolean('MESSAGE_INDEX', raw, false),
  }),
  define({
    name: 'METADATA_INDEX_FIELDS',
    key: 'metadataIndexFields',
    description: 'Comma-separated session metadata fields to index (e.g. priority,department,status).',
    defaultText: '',
    expected: 'comma-separated field names without $',
    parse: (raw) => {
      const fields = list(raw);
      if (fields.some((field) => field.startsWith('$') || field.includes('$'))) {
        throw new ConfigError('METADATA_INDEX_FIELDS', 'comma-separated field names without $', raw ?? '');
      }
      return fields;
    },
  }),
  define({
    name: 'API_KEYS',
    secret: true,
    key: 'apiKeys',
    description:
      'Comma-separated keys `key[:role[:tenant]]` (role default admin, tenant default); with these or stored keys (npm run keys), every GraphQL request needs `Authorization: Bearer <key>`.',
    defaultText: '',
    expected: 'comma-separated key[:role[:tenant]] entries',
    parse: (raw) => {
      const entries = list(raw);
      // Checked here too, so a bad entry stops every start (not only those that serve beyond loopback).
      try {
        parseEnvKeys(entries);
      } catch (error) {
        throw new ConfigError('API_KEYS', (error as Error).message, raw ?? '');
      }
      return entries;
    },
  }),
  define({
    name: 'ALLOW_ANONYMOUS',
    key: 'allowAnonymous',
    description: 'Lets the API listen on a non-loopback HOST with no key configured (anyone reaching it is admin).',
    defaultText: 'false',
    expected: 'one of true, false, 1, 0',
    parse: (raw) => boolean('ALLOW_ANONYMOUS', raw, false),
  }),
  define({
    name: 'INTROSPECTION',
    key: 'introspection',
    description: 'GraphQL introspection. Default: off when NODE_ENV=production, else on.',
    expected: 'one of true, false, 1, 0',
    parse: (raw, env) => boolean('INTROSPECTION', raw, env.NODE_ENV !== 'production'),
  }),
  define({
    name: 'PLAYGROUND',
    key: 'playground',
    description: 'The playground page on GET /graphql. Default: off when NODE_ENV=production, else on.',
    expected: 'one of true, false, 1, 0',
    parse: (raw, env) => boolean('PLAYGROUND', raw, env.NODE_ENV !== 'production'),
  }),
  define({
    name: 'CORS_ORIGINS',
    key: 'corsOrigins',
    description:
      'Browser origins allowed to call the API from another origin (`https://app.example.com,http://localhost:5173`), or `*` for any (then without credentials). Unset: none. See docs/frontends.md.',
    defaultText: '',
    expected: 'comma-separated origins (scheme://host[:port]) or *',
    parse: (raw) => {
      const origins = list(raw).map((origin) => origin.replace(/\/$/, ''));
      const valid = origins.every((origin) => origin !== '*' && isOrigin(origin));
      if (!(valid || (origins.length === 1 && origins[0] === '*'))) {
        throw new ConfigError('CORS_ORIGINS', 'comma-separated origins (scheme://host[:port]) or * alone', raw ?? '');
      }
      return origins;
    },
  }),
  define({
    name: 'RATE_LIMIT_PER_MIN',
    key: 'rateLimitPerMin',
    description:
      'GraphQL requests per minute per key (anonymous: per client address, loopback not limited), as a token bucket holding a minute; 0: no limit.',
    defaultText: '6000',
    expected: 'an integer from 0 to 100000000',
    parse: (raw) => integer(0, 100_000_000, 6_000)('RATE_LIMIT_PER_MIN', raw),
  }),
  define({
    name: 'LOG_LEVEL',
    key: 'logLevel',
    description: 'Least severe log level written to stdout (JSON lines).',
    defaultText: 'info',
    expected: 'one of debug, info, warn, error',
    parse: (raw) => (present(raw) ? oneOf('LOG_LEVEL', raw, ['debug', 'info', 'warn', 'error'] as const) : 'info'),
  }),
  define({
    name: 'OTEL_EXPORTER_OTLP_ENDPOINT',
    // A collector's URL may carry credentials.
    secret: true,
    key: 'otlpEndpoint',
    description:
      'OpenTelemetry collector (OTLP/HTTP): each request traced to <endpoint>/v1/traces; unset: no tracing at all.',
    expected: 'an http:// or https:// URL',
    parse: (raw) => {
      const value = optional(raw);
      if (value !== undefined && !/^https?:\/\/[^\s]+$/i.test(value)) {
        throw new ConfigError('OTEL_EXPORTER_OTLP_ENDPOINT', 'an http:// or https:// URL', value);
      }
      return value?.replace(/\/+$/, '');
    },
  }),
  define({
    name: 'OTEL_EXPORTER_OTLP_PROTOCOL',
    key: 'otlpProtocol',
    description: "The exports' encoding (OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, when set, wins); grpc is not served.",
    defaultText: 'http/protobuf',
    expected: `one of ${OTLP_PROTOCOLS.join(', ')}`,
    parse: (raw, env) => {
      const traces = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL;
      if (present(traces)) return oneOf('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', traces, OTLP_PROTOCOLS);
      return present(raw) ? oneOf('OTEL_EXPORTER_OTLP_PROTOCOL', raw, OTLP_PROTOCOLS) : 'http/protobuf';
    },
  }),
  define({
    name: 'OTEL_EXPORTER_OTLP_HEADERS',
    secret: true,
    key: 'otlpHeaders',
    description: "Headers sent with each export (a collector's credentials), as `name=value,name2=value2`.",
    expected: 'comma-separated name=value pairs',
    parse: (raw) => {
      const headers: Record<string, string> = {};
      for (const pair of list(raw)) {
        const at = pair.indexOf('=');
        const name = pair.slice(0, at).trim();
        // Values are percent-encoded, as the OpenTelemetry specification has them.
        const value = at > 0 ? decodedOrNull(pair.slice(at + 1).trim()) : null;
        if (value === null || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
          throw new ConfigError('OTEL_EXPORTER_OTLP_HEADERS', 'comma-separated name=value pairs', raw ?? '');
        }
        headers[name] = value;
      }
      return headers;
    },
  }),
  define({
    name: 'OTEL_SERVICE_NAME',
    key: 'serviceName',
    description: "The traces' service.name.",
    defaultText: 'hindsight',
    expected: 'a name',
    parse: (raw) => optional(raw) ?? 'hindsight',
  }),
  define({
    name: 'OTEL_TRACES_SAMPLER',
    key: 'tracesSampler',
    description:
      'Which requests are traced (the OpenTelemetry names; a request starts its trace, so parentbased_* act as their root sampler).',
    defaultText: 'parentbased_always_on',
    expected: `one of ${TRACES_SAMPLERS.join(', ')}`,
    parse: (raw) => (present(raw) ? oneOf('OTEL_TRACES_SAMPLER', raw, TRACES_SAMPLERS) : 'parentbased_always_on'),
  }),
  define({
    name: 'OTEL_TRACES_SAMPLER_ARG',
    key: 'tracesSamplerRatio',
    description: 'The share of requests traced by the traceidratio samplers.',
    defaultText: '1.0',
    expected: 'a number from 0 to 1',
    parse: (raw) => {
      if (!present(raw)) return 1;
      const ratio = Number(raw);
      if (!(ratio >= 0 && ratio <= 1)) {
        throw new ConfigError('OTEL_TRACES_SAMPLER_ARG', 'a number from 0 to 1', raw);
      }
      return ratio;
    },
  }),
  define({
    name: 'SHUTDOWN_TIMEOUT_MS',
    key: 'shutdownTimeoutMs',
    description:
      'On SIGINT/SIGTERM, how long in-flight requests may take before connections are closed; the process ends at most 4.5 s later whatever it is doing.',
    defaultText: '5000',
    expected: 'an integer from 0 to 600000',
    parse: (raw) => integer(0, 600000, 5000)('SHUTDOWN_TIMEOUT_MS', raw),
  }),
  define({
    name: 'MAX_QUERY_TOKENS',
    key: 'maxQueryTokens',
    description: 'Tokens a GraphQL document may have; the parser stops at the limit (QUERY_TOO_LARGE).',
    defaultText: '3000',
    expected: 'an integer from 100 to 1000000',
    parse: (raw) => integer(100, 1_000_000, 3000)('MAX_QUERY_TOKENS', raw),
  }),
  define({
    name: 'MAX_QUERY_DEPTH',
    key: 'maxQueryDepth',
    description: 'Fields an operation may nest (QUERY_TOO_DEEP); introspection fields do not count.',
    defaultText: '12',
    expected: 'an integer from 1 to 1000',
    parse: (raw) => integer(1, 1000, 12)('MAX_QUERY_DEPTH', raw),
  }),
  define({
    name: 'MAX_ALIASES',
    key: 'maxAliases',
    description: 'Aliased fields an operation may have (TOO_MANY_ALIASES).',
    defaultText: '30',
    expected: 'an integer from 0 to 100000',
    parse: (raw) => integer(0, 100_000, 30)('MAX_ALIASES', raw),
  }),
  define({
    name: 'MAX_QUERY_COST',
    key: 'maxQueryCost',
    description:
      'Cost an operation may have (QUERY_TOO_COMPLEX): 1 per field, children times the list size (first/last/limit; a variable counts as its maximum), a search 10 + its limit.',
    defaultText: '30000',
    expected: 'an integer from 1 to 1000000000',
    parse: (raw) => integer(1, 1_000_000_000, 30_000)('MAX_QUERY_COST', raw),
  }),
  define({
    name: 'MAX_COMPILED_QUERY_CHARS',
    key: 'maxCompiledQueryChars',
    description:
      'Longer documents are executed by graphql-js instead of being compiled by graphql-jit (whose compile time grows with the document).',
    defaultText: '8000',
    expected: 'an integer from 0 to 10000000',
    parse: (raw) => integer(0, 10_000_000, 8000)('MAX_COMPILED_QUERY_CHARS', raw),
  }),
  define({
    name: 'IDEMPOTENCY_TTL_HOURS',
    key: 'idempotencyTtlHours',
    description:
      "How long a mutation's idempotencyKey is remembered: a retry with the same key within it returns the first result.",
    defaultText: '24',
    expected: 'an integer from 24 to 8760',
    parse: (raw) => integer(24, 8760, 24)('IDEMPOTENCY_TTL_HOURS', raw),
  }),
  define({
    name: 'RETENTION_MESSAGES',
    key: 'retentionMessages',
    description:
      'Deletes whole sessions (their messages) whose last activity (updated_at) is older than this, e.g. 90d; unset: kept.',
    expected: DURATION_EXPECTED,
    parse: (raw) => retention('RETENTION_MESSAGES', raw),
  }),
  define({
    name: 'RETENTION_EXPERIENCES',
    key: 'retentionExperiences',
    description: 'Deletes experiences recorded (timestamp) longer ago than this, e.g. 365d; unset: kept.',
    expected: DURATION_EXPECTED,
    parse: (raw) => retention('RETENTION_EXPERIENCES', raw),
  }),
  define({
    name: 'RETENTION_TASKS',
    key: 'retentionTasks',
    description: 'Deletes tasks created (createdAt) longer ago than this, e.g. 180d; unset: kept.',
    expected: DURATION_EXPECTED,
    parse: (raw) => retention('RETENTION_TASKS', raw),
  }),
  define({
    name: 'RETENTION_INSIGHTS',
    key: 'retentionInsights',
    description:
      'Deletes insights not validated (lastValidated, else createdAt) for longer than this, e.g. 180d; unset: kept.',
    expected: DURATION_EXPECTED,
    parse: (raw) => retention('RETENTION_INSIGHTS', raw),
  }),
  define({
    name: 'DEDUPE_THRESHOLD',
    key: 'dedupeThreshold',
    description:
      "recordExperience counts an occurrence of a current experience of the same agent, user and outcome whose goal and sub-task have the same words but for articles and inflection and whose goal vector is at least this cosine from the new one's (equal normalised texts always count): measured for the local model in docs/retrieval.md; 1 leaves (almost) only equal normalised texts.",
    defaultText: '0.85',
    expected: 'a number from 0 to 1',
    parse: (raw) => {
      if (!present(raw)) return 0.85;
      const threshold = Number(raw);
      if (!(threshold >= 0 && threshold <= 1)) throw new ConfigError('DEDUPE_THRESHOLD', 'a number from 0 to 1', raw);
      return threshold;
    },
  }),
  define({
    name: 'MAX_METADATA_KEYS',
    key: 'maxMetadataKeys',
    description:
      'Keys one JSON input (metadata, agent data, content, extra fields) or one list of metadata keys may hold, nested ones included (BAD_USER_INPUT).',
    defaultText: '1000',
    expected: 'an integer from 1 to 1000000',
    parse: (raw) => integer(1, 1_000_000, 1000)('MAX_METADATA_KEYS', raw),
  }),
  define({
    name: 'REQUEST_TIMEOUT_MS',
    key: 'requestTimeoutMs',
    description:
      'Deadline of one GraphQL request: then its searches stop, its database commands expire (maxTimeMS) and it answers TIMEOUT.',
    defaultText: '30000',
    expected: 'an integer from 100 to 3600000',
    parse: (raw) => integer(100, 3_600_000, 30_000)('REQUEST_TIMEOUT_MS', raw),
  }),
  define({
    name: 'HINDSIGHT_URL',
    key: 'hindsightUrl',
    description:
      'npm run mcp (stdio): the Hindsight server to serve, e.g. http://127.0.0.1:4000; unset: an embedded server on DATA_DIR in the same process.',
    expected: 'an http:// or https:// URL',
    parse: (raw) => {
      const value = optional(raw);
      if (value !== undefined && !/^https?:\/\/[^\s]+$/i.test(value)) {
        throw new ConfigError('HINDSIGHT_URL', 'an http:// or https:// URL', value);
      }
      return value;
    },
  }),
  define({
    name: 'HINDSIGHT_API_KEY',
    secret: true,
    key: 'hindsightApiKey',
    description: 'npm run mcp (stdio): the API key its tools act with (sent as `Authorization: Bearer`).',
    expected: 'an API key',
    parse: (raw) => optional(raw),
  }),
] as const;

/**
 * Reads and validates the configuration. Throws `ConfigError` naming the first invalid variable.
 * `overrides` lets tests and tools set values without touching `process.env`.
 */
export function loadConfig(env: Env = process.env, overrides: Partial<Config> = {}): Config {
  const config = {} as Record<keyof Config, unknown>;
  for (const variable of VARIABLES) {
    config[variable.key] = (variable.parse as (raw: string | undefined, env: Env) => unknown)(env[variable.name], env);
  }
  const result = { ...(config as unknown as Config), ...overrides };
  registerSecrets(secretValues(result));
  if (result.embeddingsProvider === 'openai' && !result.openaiApiKey) {
    throw new ConfigError('OPENAI_API_KEY', 'a key when EMBEDDINGS_PROVIDER=openai', '');
  }
  if (result.embeddingsProvider === 'onnx' && !result.embeddingModelDir) {
    throw new ConfigError('EMBEDDING_MODEL_DIR', 'a model folder when EMBEDDINGS_PROVIDER=onnx', '');
  }
  return result;
}

/** The values of the secret variables in `config` (each key of a list, and a connection string's password). */
export function secretValues(config: Config): string[] {
  const values: string[] = [];
  for (const variable of VARIABLES) {
    if (!('secret' in variable)) continue;
    const value = config[variable.key];
    if (typeof value === 'string') values.push(value);
    else if (Array.isArray(value)) values.push(...value);
    else if (value && typeof value === 'object') values.push(...Object.values(value));
  }
  const password = uriPassword(config.mongodbUri);
  return password ? [...values, password] : values;
}

/** Loads `.env` from the working directory into the environment when present (variables already set win). */
export function loadDotEnv(file = path.resolve('.env')): void {
  if (existsSync(file)) process.loadEnvFile(file);
}

/** True when running under a test runner; used to keep test output quiet. */
export function isTestEnvironment(env: Env = process.env): boolean {
  return env.JEST_WORKER_ID !== undefined || env.NODE_ENV === 'test';
}
