import { parse } from 'graphql';
import { createTestApp, type TestApp } from '../../support/app';
import { subscribe, waitUntil, wsClient } from '../../support/subscriptions';

let app: TestApp;
let url: string;

beforeAll(async () => {
  app = await createTestApp();
  url = await app.server.listen(0, '127.0.0.1');
});
afterAll(() => app.close());

const RECORD = `mutation($input: RecordExperienceInput!) { recordExperience(input: $input) { experienceId } }`;

function input(id: string, extra: Record<string, unknown> = {}) {
  return {
    experienceId: id,
    primaryGoalDescription: 'stack the pallets',
    subTaskDescription: 'stack',
    initiatingAgentId: 'agent-live',
    finalOutcome: 'SUCCESS',
    ...extra,
  };
}

it('experienceRecorded delivers current experiences only: not an expired or a pending one', async () => {
  const client = wsClient(url);
  const recorded = subscribe(
    client,
    parse(`subscription { experienceRecorded(filter: { initiatingAgentId: "agent-live" }) { experienceId status } }`),
    {},
  );
  await waitUntil(() => app.server.subscriptions.subscribers === 1);
  const day = 86_400_000;
  await app.run(RECORD, {
    input: input('live-expired', { validFrom: new Date(Date.now() - 2 * day), validUntil: new Date(Date.now() - day) }),
  });
  await app.run(RECORD, { input: input('live-pending', { validFrom: new Date(Date.now() + day) }) });
  await app.run(RECORD, { input: input('live-current') });
  expect(await recorded.next()).toEqual({
    data: { experienceRecorded: { experienceId: 'live-current', status: 'CURRENT' } },
  });
  expect(recorded.results).toHaveLength(1);
  recorded.unsubscribe();
  await client.dispose();
});
