import { print } from 'graphql';
import { ConfigError, loadConfig, VARIABLES, type Config } from '../../src/config';
import { OpenAIEmbeddingProvider } from '../../src/embeddings/openai.provider';
import { createLogger } from '../../src/logger';
import { createTestApp, type TestApp } from '../support/app';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai';
import { RecordExperienceDocument, SearchExperiencesDocument } from '../support/generated/graphql';

/** Variables whose free text is no secret (shown in logs and answers on purpose). A new free-text variable must be added here or declared `secret`. */
const PUBLIC_TEXT = new Set([
  'HOST',
  'MONGODB_DB',
  'DATA_DIR',
  // The model folder: named in the provider's start errors, as DATA_DIR is in the engine's.
  'EMBEDDING_MODEL_DIR',
  'EMBEDDING_MODEL',
  // Part of the recorded model name (serverInfo.embeddings).
  'EMBEDDING_QUERY_PREFIX',
  'EMBEDDING_DOCUMENT_PREFIX',
  'CHAT_MODEL',
  'METADATA_INDEX_FIELDS',
  // npm run mcp's server: its origin (no userinfo) is named in the relay's errors.
  'HINDSIGHT_URL',
  // The traces' service.name, shown by the collector.
  'OTEL_SERVICE_NAME',
]);

const MARK = 'Zq9PlantedText';

/** The variables that keep arbitrary text (a plain word, or one inside a URL), found by parsing: not a hand-kept list. */
function freeTextVariables(): string[] {
  const candidates = [MARK, `http://user:${MARK}@example.com/v1`, `mongodb://user:${MARK}@example.com/db`];
  return VARIABLES.filter((variable) =>
    candidates.some((raw) => {
      try {
        return JSON.stringify((variable.parse as (raw: string, env: object) => unknown)(raw, {}) ?? '').includes(MARK);
      } catch {
        return false;
      }
    }),
  ).map((variable) => variable.name);
}

const secretNames = VARIABLES.filter((variable) => 'secret' in variable).map((variable) => variable.name);

describe('secrets never appear in replies or logs', () => {
  let app: TestApp;
  let fake: FakeOpenAI;
  let url: string;
  let failing = false;
  const lines: string[] = [];
  const replies: string[] = [];
  /** Each secret variable's planted value, and the texts that must never be shown. */
  let planted: Record<string, string>;
  let secrets: string[];

  it('every variable that takes free text is either a secret or known to be public', () => {
    for (const name of freeTextVariables()) {
      expect({ name, classified: secretNames.includes(name) || PUBLIC_TEXT.has(name) }).toEqual({
        name,
        classified: true,
      });
    }
    expect(secretNames.length).toBeGreaterThan(0);
  });

  beforeAll(async () => {
    fake = await startFakeOpenAI({
      dimensions: 8,
      behaviour: () => (failing ? { kind: 'status', status: 401, echoKey: true } : { kind: 'ok' }),
    });
    // One distinct value per secret variable; a secret variable without a plant fails below.
    const plants: Record<string, string> = {
      MONGODB_URI: 'mongodb://hindsight:DbPass-planted-4711@127.0.0.1:9/hindsight',
      OPENAI_API_KEY: 'sk-planted-openai-key-0815',
      OPENAI_BASE_URL: fake.baseURL,
      API_KEYS: 'apikey-planted-one-1234,apikey-planted-two-5678',
      HINDSIGHT_API_KEY: 'hs-planted-mcp-key-2468',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel:OtelPass-planted-9753@127.0.0.1:9',
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20otel-planted-token-1357',
    };
    planted = plants;
    const config = loadConfig({ ...plants, EMBEDDINGS_PROVIDER: 'openai', EMBEDDING_DIMENSIONS: '8' });
    secrets = [
      ...Object.values(plants).flatMap((value) => value.split(',')),
      'DbPass-planted-4711', // the URI's password on its own
      'otel-planted-token-1357', // the header's value, decoded
    ];
    const overrides: Partial<Config> = {
      mongodbUri: config.mongodbUri,
      openaiApiKey: config.openaiApiKey,
      openaiBaseUrl: config.openaiBaseUrl,
      apiKeys: config.apiKeys,
      embeddingsProvider: 'openai',
      embeddingDimensions: 8,
      embeddingMaxRetries: 0,
    };
    const embeddings = new OpenAIEmbeddingProvider(
      {
        apiKey: config.openaiApiKey!,
        baseURL: config.openaiBaseUrl,
        model: 'fake-embed',
        dimensions: 8,
        batchSize: 64,
        timeoutMs: 5000,
        maxRetries: 0,
      },
      8,
    );
    app = await createTestApp({
      config: overrides,
      embeddings,
      logger: createLogger('debug', (line) => lines.push(line)),
    });
    url = await app.server.listen(0, '127.0.0.1');
  });
  afterAll(async () => {
    await app?.close();
    await fake?.close();
  });

  async function post(query: string, variables: Record<string, unknown>, key?: string): Promise<string> {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
      body: JSON.stringify({ query, variables }),
    });
    const text = await response.text();
    replies.push(text);
    return text;
  }

  it('plants a value in every secret variable', () => {
    expect(Object.keys(planted).sort()).toEqual([...secretNames].sort());
  });

  it('successful and failing operations (bad key, upstream 401 echoing the key, bad input) show no secret', async () => {
    const key = planted.API_KEYS.split(',')[0];
    const record = print(RecordExperienceDocument);
    const search = print(SearchExperiencesDocument);
    const input = (text: string) => ({
      input: {
        primaryGoalDescription: text,
        subTaskDescription: 'Sub',
        inputContextSummary: 'Context',
        outputSummary: 'Done.',
        initiatingAgentId: 'agent',
        finalOutcome: 'SUCCESS',
      },
    });
    expect(await post(record, input('Book a flight'), key)).toContain('"experienceId"');
    expect(await post(search, { query: 'flight' }, key)).toContain('"searchExperiences":[{');
    expect(await post(search, { query: 'flight' }, `${key}-wrong`)).toContain('UNAUTHENTICATED');
    expect(await post(search, { query: 'flight' })).toContain('UNAUTHENTICATED');
    expect(await post('{ nope }', {}, key)).toContain('GRAPHQL_VALIDATION_FAILED');
    failing = true;
    const upstream = await post(record, input('Book a train'), key);
    expect(upstream).toContain('SERVICE_UNAVAILABLE');
    expect(fake.requests.length).toBeGreaterThan(1);
    expect(await post(search, { query: 'train tickets' }, key)).toContain('SERVICE_UNAVAILABLE');
    failing = false;

    expect(lines.length).toBeGreaterThan(0);
    for (const secret of secrets) {
      for (const [kind, texts] of [
        ['reply', replies],
        ['log line', lines],
      ] as const) {
        const leak = texts.find((text) => text.includes(secret));
        expect({ secret, kind, leak }).toEqual({ secret, kind, leak: undefined });
      }
    }
  });

  it('a configuration error does not show a secret variable’s value', () => {
    const errors: string[] = [];
    for (const name of secretNames) {
      try {
        loadConfig({ [name]: 'not a valid value: SecretTail-9911', OPENAI_API_KEY: 'x', EMBEDDINGS_PROVIDER: 'hash' });
      } catch (error) {
        if (error instanceof ConfigError) errors.push(error.message);
      }
    }
    expect(errors.length).toBeGreaterThan(0);
    for (const message of errors) expect(message).not.toContain('SecretTail-9911');
  });
});
