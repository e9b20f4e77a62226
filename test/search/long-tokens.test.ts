import { createTestApp, type TestApp } from '../support/app';
import { databaseFingerprint } from '../support/fingerprint';
import { MAX_TOKEN_LENGTH } from '../../src/search/tokenize';

/** One token of `length` letters and digits (no separator), e.g. a base64 payload without its padding. */
function payload(length: number): string {
  const alphabet = 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';
  return Array.from({ length }, (_, i) => alphabet[(i * 7 + (i >> 5)) % alphabet.length]).join('');
}

const RECORD = `mutation ($input: RecordExperienceInput!) { recordExperience(input: $input) { experienceId } }`;
const SEARCH = `query ($query: String!, $mode: SearchMode!) {
  searchExperiences(query: $query, mode: $mode, limit: 3) { keywordScore experience { experienceId } }
}`;

describe('long single tokens', () => {
  let app: TestApp;
  const token = payload(1024 * 1024);

  beforeAll(async () => {
    app = await createTestApp();
    const inputs = [
      { experienceId: 'payload', primaryGoalDescription: `Upload the image ${token}` },
      { experienceId: 'other', primaryGoalDescription: 'Upload the report to the shared folder' },
    ];
    for (const input of inputs)
      await app.run(RECORD, {
        input: { subTaskDescription: 'Send it', initiatingAgentId: 'agent-1', finalOutcome: 'SUCCESS', ...input },
      });
  });
  afterAll(() => app.close());

  it('stores a 1 MB single-token experience whole', async () => {
    const data = await app.run(`{ experience(id: "payload") { primaryGoalDescription } }`);
    expect(data.experience.primaryGoalDescription).toBe(`Upload the image ${token}`);
  });

  it.each([
    ['the whole token', token],
    ['a prefix of 100 characters', token.slice(0, 100)],
    ['a prefix of MAX_TOKEN_LENGTH characters', token.slice(0, MAX_TOKEN_LENGTH)],
  ])('finds it by KEYWORD search of %s', async (_, query) => {
    const data = await app.run(SEARCH, { query, mode: 'KEYWORD' });
    expect(data.searchExperiences.map((hit: any) => hit.experience.experienceId)).toEqual(['payload']);
  });

  it('answers KEYWORD and HYBRID searches whose query is one 100 KB token', async () => {
    const query = payload(100 * 1024)
      .split('')
      .reverse()
      .join('');
    for (const mode of ['KEYWORD', 'HYBRID']) {
      const result = await app.execute(SEARCH, { query, mode });
      expect(result.errors).toBeUndefined();
    }
  });

  it('answers similarTasks whose query is 100 KB of unclosed quotes or one token', async () => {
    for (const query of ['“'.repeat(100 * 1024), payload(100 * 1024)]) {
      const result = await app.execute(`query ($query: String!) { similarTasks(query: $query) { count } }`, { query });
      expect(result.errors).toBeUndefined();
    }
  });

  it('refuses a text over its documented limit naming the field and the limit, and writes nothing', async () => {
    await app.run(`mutation {
      createSession(input: { sessionId: "long-s" }) { sessionId }
      upsertAgent(sessionId: "long-s", input: { agentId: "long-a", agentData: {} }) { agentId }
    }`);
    const before = await databaseFingerprint(app.db);
    const message = await app.execute(
      `mutation ($content: JSON!) { appendMessage(sessionId: "long-s", agentId: "long-a", input: { role: USER, content: $content }) { messageId } }`,
      { content: token },
    );
    expect(message.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    expect(message.errors?.[0].message).toMatch(/input\.content .*102400/);
    const task = await app.execute(`mutation ($input: RecordTaskInput!) { recordTask(input: $input) { taskId } }`, {
      input: { goal: token, originalQuery: 'upload it', status: 'COMPLETED' },
    });
    expect(task.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    expect(task.errors?.[0].message).toMatch(/input\.goal .*10000/);
    expect(await databaseFingerprint(app.db)).toEqual(before);
  });
});
