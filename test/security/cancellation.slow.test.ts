import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { SpaceQuery } from '../../src/search/space-query';
import { createTestApp, type TestApp } from '../support/app';
import { RecordExperiencesDocument, type RecordExperienceInput } from '../support/generated/graphql';

const TIMEOUT_MS = 750;

/** `experiences → similar → experience → similar …`: 50 × 20^levels searches, far more than a deadline allows. */
function heavyQuery(levels: number): string {
  let selection = 'experienceId';
  for (let level = 0; level < levels; level++) {
    selection = `experienceId similar(limit: 20) { score experience { ${selection} } }`;
  }
  return `query Heavy { experiences(first: 50) { edges { node { ${selection} } } } }`;
}

interface Reply {
  status: number;
  body: { data?: unknown; errors?: Array<{ message: string; extensions?: Record<string, unknown> }> };
  ms: number;
}

describe('a request stops working at its deadline or when its client leaves', () => {
  let app: TestApp;
  let url: string;
  let searches: jest.SpyInstance;

  /** Sends `query` (POST: the fast path; GET: Apollo) and returns the answer with the time it took. */
  function send(query: string, method: 'POST' | 'GET', abortWhen?: () => boolean, to = url): Promise<Reply> {
    const started = Date.now();
    const target = new URL(to);
    if (method === 'GET') target.searchParams.set('query', query);
    return new Promise((resolve, reject) => {
      const request = http.request(
        target,
        // Apollo refuses a GET without a preflight header (CSRF prevention); the fast path needs none.
        { method, headers: { 'content-type': 'application/json', 'apollo-require-preflight': 'true' } },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              body: JSON.parse(Buffer.concat(chunks).toString()),
              ms: Date.now() - started,
            }),
          );
        },
      );
      request.on('error', reject);
      request.end(method === 'POST' ? JSON.stringify({ query }) : undefined);
      if (abortWhen) {
        const poll = setInterval(() => {
          if (!abortWhen()) return;
          clearInterval(poll);
          request.destroy();
        }, 5);
      }
    });
  }

  const inputs = Array.from({ length: 60 }, (_, i): RecordExperienceInput => ({
    primaryGoalDescription: `Goal number ${i} about topic ${i % 7}`,
    subTaskDescription: `Sub-task ${i}`,
    inputContextSummary: `Context ${i}`,
    outputSummary: 'Done.',
    initiatingAgentId: 'agent',
    finalOutcome: 'SUCCESS',
  }));

  /** A server whose requests end after `requestTimeoutMs`, holding 60 experiences. */
  async function startApp(requestTimeoutMs: number): Promise<TestApp> {
    // The cost limit is raised so that a query heavier than any default admits runs: the point here is what stops it.
    const started = await createTestApp({ config: { requestTimeoutMs, maxQueryCost: 1_000_000_000 } });
    await started.run(RecordExperiencesDocument, { inputs });
    return started;
  }

  beforeAll(async () => {
    app = await startApp(TIMEOUT_MS);
    url = await app.server.listen(0, '127.0.0.1');
    searches = jest.spyOn(SpaceQuery.prototype, 'searchVector');
  });
  afterAll(async () => {
    searches.mockRestore();
    await app.close();
  });

  it('a client that disconnects from a heavy query stops its searches within 300 ms of leaving', async () => {
    // A deadline the query cannot reach first, however loaded the machine: only the client's leaving stops it.
    const patient = await startApp(120_000);
    const patientUrl = await patient.server.listen(0, '127.0.0.1');
    searches.mockClear();
    // Leaves once the server is searching (a fixed delay may end before it started, on a loaded machine).
    await expect(send(heavyQuery(3), 'POST', () => searches.mock.calls.length >= 50, patientUrl)).rejects.toThrow(
      /socket hang up|ECONNRESET/,
    );
    await sleep(300);
    const atStop = searches.mock.calls.length;
    await sleep(1000);
    // Started, then not one more search in a second, short of the 21,050 (50 + 50 × 20 + 50 × 20 × 20) of a run to
    // the end. How many ran before the server saw the socket close depends on the machine's load, not on the server.
    expect(atStop).toBeGreaterThan(0);
    expect(searches.mock.calls.length).toBe(atStop);
    expect(atStop).toBeLessThan(21_050);
    await patient.close();
  });

  it.each(['POST', 'GET'] as const)(
    '%s: the deadline answers TIMEOUT, never INTERNAL_SERVER_ERROR, and stops the searches',
    async (method) => {
      searches.mockClear();
      const reply = await send(heavyQuery(3), method);
      const stoppedAt = searches.mock.calls.length;
      expect(reply.status).toBe(200);
      const codes = new Set(reply.body.errors?.map((error) => error.extensions?.code));
      expect([...codes]).toEqual(['TIMEOUT']);
      expect(reply.body.errors?.[0].message).toContain(`${TIMEOUT_MS} ms`);
      // Answered within a bound of the deadline (each search in flight finishes its step first).
      expect(reply.ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
      // Far below the 35 s the query takes to the end; loose, as the suite shares the machine.
      expect(reply.ms).toBeLessThan(TIMEOUT_MS + 5000);
      await sleep(500);
      expect(searches.mock.calls.length).toBe(stoppedAt);
    },
  );

  // Driver 7 leaves maxTimeMS out of `find` commands (its CSOT is a no-op): those stop at the checks before them.
  it('aggregate and count commands of a request carry maxTimeMS no later than its deadline', async () => {
    app.commands.reset();
    const reply = await send('{ experiences(first: 5) { totalCount edges { node { experienceId } } } }', 'POST');
    expect(reply.body.errors).toBeUndefined();
    const reads = app.commands.events.filter((event) => ['aggregate', 'count', 'distinct'].includes(event.commandName));
    expect(reads.length).toBeGreaterThan(0);
    for (const read of reads) {
      expect({ command: read.commandName, maxTimeMS: read.command.maxTimeMS }).toEqual({
        command: read.commandName,
        maxTimeMS: expect.any(Number),
      });
      expect(read.command.maxTimeMS).toBeGreaterThan(0);
      expect(read.command.maxTimeMS).toBeLessThanOrEqual(TIMEOUT_MS);
    }
  });
});
