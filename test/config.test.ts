import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, VARIABLES, loadConfig } from '../src/config';

describe('config', () => {
  it('gives every variable its default when the environment is empty', () => {
    const config = loadConfig({});
    expect(config.port).toBe(4000);
    expect(config.mongodbUri).toBeUndefined();
    expect(config.dataDir).toBe(path.resolve('./data'));
    expect(config.embeddingsProvider).toBe('local');
    expect(config.vectorSearch).toBe('memory');
    expect(config.metadataIndexFields).toEqual([]);
    // The OpenTelemetry specification's defaults: every request traced.
    expect(config.tracesSampler).toBe('parentbased_always_on');
    expect(config.tracesSamplerRatio).toBe(1);
  });

  it('defaults the embeddings provider to openai when an API key is set', () => {
    expect(loadConfig({ OPENAI_API_KEY: 'sk-test' }).embeddingsProvider).toBe('openai');
  });

  it.each([
    ['PORT', 'eighty', 'an integer from 0 to 65535'],
    ['PORT', '70000', 'an integer from 0 to 65535'],
    ['MONGODB_URI', 'postgres://x', 'a mongodb:// or mongodb+srv:// URI'],
    ['EMBEDDINGS_PROVIDER', 'magic', 'one of openai, onnx, local, hash'],
    ['VECTOR_SEARCH', 'faiss', 'one of memory, atlas'],
    ['METADATA_INDEX_FIELDS', 'priority,$where', 'comma-separated field names without $'],
    ['EMBEDDING_DIMENSIONS', '3', 'an integer from 8 to 8192'],
    ['OTEL_TRACES_SAMPLER', 'jaeger_remote', 'one of always_on, always_off, traceidratio, parentbased_always_on'],
    ['OTEL_TRACES_SAMPLER_ARG', '1.5', 'a number from 0 to 1'],
    ['OTEL_TRACES_SAMPLER_ARG', 'half', 'a number from 0 to 1'],
    ['RETENTION_MESSAGES', 'ninety days', 'a duration above 0 such as 90d'],
    ['RETENTION_EXPERIENCES', '0d', 'a duration above 0'],
    ['RETENTION_TASKS', '-5d', 'a duration above 0'],
    ['RETENTION_INSIGHTS', '90', 'a duration above 0'],
    ['RETENTION_INSIGHTS', '1.5d', 'a duration above 0'],
    ['RETENTION_MESSAGES', '100000w', 'at most 2147483647 seconds'],
    ['ENGINE_TTL_INTERVAL_MS', '0', 'an integer from 10 to 86400000'],
  ])('rejects %s=%s naming the variable and the expected form', (name, value, expected) => {
    let caught: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).variable).toBe(name);
    expect((caught as Error).message).toContain(name);
    expect((caught as Error).message).toContain(expected);
  });

  it('reads retentions as durations in seconds; unset keeps for ever', () => {
    const config = loadConfig({
      RETENTION_MESSAGES: '90d',
      RETENTION_EXPERIENCES: ' 2W ',
      RETENTION_TASKS: '12h',
      RETENTION_INSIGHTS: '45s',
    });
    expect(config.retentionMessages).toEqual({ text: '90d', seconds: 7_776_000 });
    expect(config.retentionExperiences).toEqual({ text: '2w', seconds: 1_209_600 });
    expect(config.retentionTasks).toEqual({ text: '12h', seconds: 43_200 });
    expect(config.retentionInsights).toEqual({ text: '45s', seconds: 45 });
    expect(loadConfig({ RETENTION_TASKS: '30m' }).retentionTasks).toEqual({ text: '30m', seconds: 1800 });
    const kept = loadConfig({ RETENTION_MESSAGES: '' });
    expect([kept.retentionMessages, kept.retentionExperiences, kept.retentionTasks, kept.retentionInsights]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(kept.engineTtlIntervalMs).toBe(60_000);
  });

  it('requires an API key when the openai provider is chosen explicitly', () => {
    expect(() => loadConfig({ EMBEDDINGS_PROVIDER: 'openai' })).toThrow(/OPENAI_API_KEY/);
  });

  it('refuses a bad API_KEYS entry at every start, without showing the keys', () => {
    const start = () => loadConfig({ API_KEYS: 'hs_first_secret:reader,hs_second_secret:root' });
    expect(start).toThrow(/API_KEYS entry 2: role must be one of reader, writer, admin/);
    expect(start).not.toThrow(/hs_first_secret|hs_second_secret/);
    expect(loadConfig({ API_KEYS: 'hs_ok:writer:acme' }).apiKeys).toEqual(['hs_ok:writer:acme']);
  });

  it('parses lists and numbers', () => {
    const config = loadConfig({
      METADATA_INDEX_FIELDS: ' priority, department ,',
      PORT: '8080',
      OTEL_TRACES_SAMPLER: 'TraceIdRatio',
      OTEL_TRACES_SAMPLER_ARG: ' 0.25 ',
    });
    expect(config.metadataIndexFields).toEqual(['priority', 'department']);
    expect(config.port).toBe(8080);
    expect(config.tracesSampler).toBe('traceidratio');
    expect(config.tracesSamplerRatio).toBe(0.25);
  });

  it("reads OTLP's protocol as OpenTelemetry's variables have it, and refuses grpc by name", () => {
    expect(loadConfig({}).otlpProtocol).toBe('http/protobuf');
    expect(loadConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }).otlpProtocol).toBe('http/json');
    expect(
      loadConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' })
        .otlpProtocol,
    ).toBe('http/protobuf');
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL/);
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' })).toThrow(
      /OTEL_EXPORTER_OTLP_TRACES_PROTOCOL/,
    );
  });

  it('.env.example and the README document every variable', () => {
    const root = path.resolve(__dirname, '..');
    const example = readFileSync(path.join(root, '.env.example'), 'utf8');
    const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
    for (const variable of VARIABLES) {
      expect(example).toMatch(new RegExp(`^#? ?${variable.name}=`, 'm'));
      expect(readme).toContain(`\`${variable.name}\``);
    }
  });
});
