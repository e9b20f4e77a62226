import { call, createTestApp, operationName, type OperationCall, type TestApp } from '../support/app';
import {
  AppendMessageDocument,
  CreateSessionDocument,
  DeleteSessionMetadataKeysDocument,
  UpdateSessionMetadataDocument,
  UpsertAgentDocument,
} from '../support/generated/graphql';

const LIMIT = 1000;

/** `count` keys `k0…`, the last `nested` of them one level down under `nested`. */
function keys(count: number, nested = 0): Record<string, unknown> {
  const top: Record<string, unknown> = {};
  const inner: Record<string, unknown> = {};
  for (let i = 0; i < count - nested; i++) top[`k${i}`] = i;
  if (nested > 0) {
    // The `nested` key itself counts as one of the top-level ones.
    delete top[`k${count - nested - 1}`];
    for (let i = 0; i < nested; i++) inner[`n${i}`] = i;
    top.nested = inner;
  }
  return top;
}

describe('MAX_METADATA_KEYS: JSON inputs with more keys are refused (BAD_USER_INPUT naming field and count)', () => {
  let app: TestApp;
  const snapshot = () => app.db.collection('sessions').find({}).sort({ _id: 1 }).toArray();

  beforeAll(async () => {
    app = await createTestApp({ config: { maxMetadataKeys: LIMIT } });
    await app.run(CreateSessionDocument, { input: { sessionId: 's1', metadata: keys(10) } });
    await app.run(UpsertAgentDocument, { sessionId: 's1', input: { agentId: 'a1', agentData: {} } });
  });
  afterAll(() => app.close());

  const over: Array<[string, OperationCall, string]> = [
    [
      'createSession',
      call(CreateSessionDocument, { input: { sessionId: 's2', metadata: keys(LIMIT + 1) } }),
      'input.metadata',
    ],
    [
      'createSession, nested',
      call(CreateSessionDocument, { input: { sessionId: 's2', metadata: keys(LIMIT + 1, 600) } }),
      'input.metadata',
    ],
    [
      'updateSessionMetadata',
      call(UpdateSessionMetadataDocument, { sessionId: 's1', metadata: keys(LIMIT + 1) }),
      'metadata',
    ],
    [
      'updateSessionMetadata, nested',
      call(UpdateSessionMetadataDocument, { sessionId: 's1', metadata: keys(LIMIT + 1, 900) }),
      'metadata',
    ],
    [
      'deleteSessionMetadataKeys',
      call(DeleteSessionMetadataKeysDocument, { sessionId: 's1', keys: Object.keys(keys(LIMIT + 1)) }),
      'keys',
    ],
    [
      'upsertAgent',
      call(UpsertAgentDocument, { sessionId: 's1', input: { agentId: 'a2', agentData: keys(LIMIT + 1, 500) } }),
      'input.agentData',
    ],
    [
      'appendMessage content',
      call(AppendMessageDocument, {
        sessionId: 's1',
        agentId: 'a1',
        input: { role: 'USER', content: [keys(LIMIT + 1)] },
      }),
      'input.content',
    ],
  ];

  it.each(over)(
    '%s: LIMIT + 1 keys → BAD_USER_INPUT, nothing written',
    async (_name, { document, variables }, field) => {
      const before = await snapshot();
      const result = await app.execute(document, variables);
      const error = result.errors?.[0];
      expect({ op: operationName(document), code: error?.extensions?.code, field: error?.extensions?.field }).toEqual({
        op: operationName(document),
        code: 'BAD_USER_INPUT',
        field,
      });
      expect(error?.extensions).toMatchObject({ count: LIMIT + 1, limit: LIMIT });
      expect(error?.message).toContain(String(LIMIT + 1));
      expect(await snapshot()).toEqual(before);
    },
  );

  it('exactly LIMIT keys are accepted by createSession and updateSessionMetadata', async () => {
    await app.run(CreateSessionDocument, { input: { sessionId: 's3', metadata: keys(LIMIT, 400) } });
    const updated = await app.run(UpdateSessionMetadataDocument, { sessionId: 's1', metadata: keys(LIMIT) });
    expect(Object.keys(updated.updateSessionMetadata.metadata as object)).toHaveLength(LIMIT);
  });
});
