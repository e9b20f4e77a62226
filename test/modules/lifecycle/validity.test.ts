import { createTestApp, type TestApp } from '../../support/app';
import { databaseFingerprint } from '../../support/fingerprint';

const EXPERIENCE = `experienceId status validFrom validUntil endedReason supersededBy { experienceId }
  supersedes { experienceId }`;
const BETA = { role: 'writer' as const, tenant: 'beta', keyId: 'beta-writer' };

let app: TestApp;
let sequence = 0;

beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.close());

/** Records an experience of a topic of its own (so the tests of this file do not find each other's). */
async function record(goal: string, extra: Record<string, unknown> = {}): Promise<string> {
  const data = await app.run(
    `mutation($input: RecordExperienceInput!) { recordExperience(input: $input) { experienceId } }`,
    {
      input: {
        experienceId: `exp-${++sequence}`,
        primaryGoalDescription: goal,
        subTaskDescription: 'look up the facility',
        initiatingAgentId: 'agent-validity',
        finalOutcome: 'SUCCESS',
        ...extra,
      },
    },
  );
  return data.recordExperience.experienceId;
}

async function supersede(id: string, by: string, reason: string | null = 'replaced') {
  const data = await app.run(
    `mutation($id: ID!, $by: ID!, $reason: String) { supersedeExperience(id: $id, by: $by, reason: $reason) { ${EXPERIENCE} } }`,
    { id, by, reason },
  );
  return data.supersedeExperience;
}

async function retire(id: string, reason = 'no longer true') {
  const data = await app.run(
    `mutation($id: ID!, $reason: String!) { retireExperience(id: $id, reason: $reason) { ${EXPERIENCE} } }`,
    { id, reason },
  );
  return data.retireExperience;
}

/** The ids `experiences` lists for a goal's agent, with the validity arguments given. */
async function listed(args: { includeSuperseded?: boolean; asOf?: Date } = {}): Promise<string[]> {
  const data = await app.run(
    `query($includeSuperseded: Boolean!, $asOf: DateTimeISO) {
      experiences(first: 100, includeSuperseded: $includeSuperseded, asOf: $asOf, orderBy: { direction: ASC }) {
        totalCount edges { node { experienceId } }
      }
    }`,
    { includeSuperseded: args.includeSuperseded ?? false, asOf: args.asOf ?? null },
  );
  const ids = data.experiences.edges.map((edge: any) => edge.node.experienceId);
  expect(data.experiences.totalCount).toBe(ids.length);
  return ids;
}

async function searched(
  query: string,
  mode: string,
  args: { includeSuperseded?: boolean; asOf?: Date; limit?: number } = {},
): Promise<string[]> {
  const data = await app.run(
    `query($query: String!, $mode: SearchMode!, $limit: Int!, $includeSuperseded: Boolean!, $asOf: DateTimeISO) {
      searchExperiences(query: $query, mode: $mode, limit: $limit, includeSuperseded: $includeSuperseded, asOf: $asOf) {
        experience { experienceId }
      }
    }`,
    {
      query,
      mode,
      limit: args.limit ?? 10,
      includeSuperseded: args.includeSuperseded ?? false,
      asOf: args.asOf ?? null,
    },
  );
  return data.searchExperiences.map((hit: any) => hit.experience.experienceId);
}

async function errorOf(query: string, variables: Record<string, unknown>) {
  const result = await app.execute(query, variables);
  expect(result.errors).toHaveLength(1);
  return result.errors![0];
}

const sorted = (ids: string[]) => [...ids].sort();

describe('supersede, retire and what reads return', () => {
  let wrong: string;
  let right: string;
  let retired: string;
  let beforeEnds: Date;

  beforeAll(async () => {
    wrong = await record('ship pallets through the northern gate');
    right = await record('ship pallets through the southern gate');
    retired = await record('ship pallets on sundays');
    await new Promise((resolve) => setTimeout(resolve, 5));
    beforeEnds = new Date();
    await new Promise((resolve) => setTimeout(resolve, 5));
    await supersede(wrong, right, 'the northern gate closed');
    await retire(retired, 'no deliveries on sundays any more');
  });

  it('links the chain both ways and reports each status', async () => {
    const data = await app.run(
      `query($wrong: ID!, $right: ID!, $retired: ID!) {
        wrong: experience(id: $wrong, includeSuperseded: true) { ${EXPERIENCE} history { type relatedId reason } }
        right: experience(id: $right) { ${EXPERIENCE} }
        retired: experience(id: $retired, includeSuperseded: true) { ${EXPERIENCE} }
      }`,
      { wrong, right, retired },
    );
    expect(data.wrong).toMatchObject({
      status: 'SUPERSEDED',
      endedReason: 'the northern gate closed',
      supersededBy: { experienceId: right },
      supersedes: [],
    });
    expect(new Date(data.wrong.validUntil).getTime()).toBeGreaterThan(beforeEnds.getTime());
    expect(data.wrong.history.at(-1)).toEqual({
      type: 'SUPERSEDED',
      relatedId: right,
      reason: 'the northern gate closed',
    });
    expect(data.right).toMatchObject({ status: 'CURRENT', validUntil: null, supersedes: [{ experienceId: wrong }] });
    expect(data.retired).toMatchObject({
      status: 'RETIRED',
      endedReason: 'no deliveries on sundays any more',
      supersededBy: null,
    });
  });

  it('lists current experiences only, all of them with includeSuperseded, and the past with asOf', async () => {
    expect(await listed()).not.toEqual(expect.arrayContaining([wrong]));
    expect(await listed()).toContain(right);
    expect(await listed()).not.toContain(retired);
    expect(await listed({ includeSuperseded: true })).toEqual(expect.arrayContaining([wrong, right, retired]));
    expect(await listed({ asOf: beforeEnds })).toEqual(expect.arrayContaining([wrong, right, retired]));
  });

  it.each(['VECTOR', 'KEYWORD', 'HYBRID'])(
    '%s search leaves superseded and retired ones out unless asked',
    async (mode) => {
      const query = 'ship pallets gate sundays';
      const current = await searched(query, mode);
      expect(current).toContain(right);
      expect(current).not.toContain(wrong);
      expect(current).not.toContain(retired);
      expect(await searched(query, mode, { includeSuperseded: true })).toEqual(
        expect.arrayContaining([wrong, right, retired]),
      );
      expect(await searched(query, mode, { asOf: beforeEnds })).toEqual(
        expect.arrayContaining([wrong, right, retired]),
      );
    },
  );

  it('similar leaves them out unless asked', async () => {
    const similar = async (args: string) =>
      (
        await app.run(
          `query($id: ID!) { experience(id: $id) { similar(limit: 10${args}) { experience { experienceId } } } }`,
          {
            id: right,
          },
        )
      ).experience.similar.map((hit: any) => hit.experience.experienceId);
    expect(await similar('')).not.toContain(wrong);
    expect(await similar('')).not.toContain(retired);
    expect(await similar(', includeSuperseded: true')).toEqual(expect.arrayContaining([wrong, retired]));
    expect(await similar(`, asOf: "${beforeEnds.toISOString()}"`)).toEqual(expect.arrayContaining([wrong, retired]));
  });

  it('experience(id), node(id) and nodes(ids) answer null for an ended one unless includeSuperseded', async () => {
    const global = (
      await app.run(`query($id: ID!) { experience(id: $id, includeSuperseded: true) { id } }`, { id: wrong })
    ).experience.id;
    const data = await app.run(
      `query($id: ID!, $global: ID!) {
        experience(id: $id) { experienceId }
        node(id: $global) { id }
        nodes(ids: [$global]) { id }
        included: node(id: $global, includeSuperseded: true) { ... on Experience { experienceId supersededBy { experienceId } } }
      }`,
      { id: wrong, global },
    );
    expect(data.experience).toBeNull();
    expect(data.node).toBeNull();
    expect(data.nodes).toEqual([null]);
    expect(data.included).toEqual({ experienceId: wrong, supersededBy: { experienceId: right } });
  });
});

describe('a search page stays full when the best hits are not current', () => {
  it.each(['VECTOR', 'KEYWORD', 'HYBRID'])('%s', async (mode) => {
    const topic = `quarantine ${mode.toLowerCase()} dock`;
    // The three best matches are the query itself; the three others hold it among other words.
    const best = [await record(topic), await record(topic), await record(topic)];
    const others = [
      await record(`${topic} with forklifts and a long checklist for the night shift`),
      await record(`${topic} with cranes and a long checklist for the morning shift`),
      await record(`${topic} with trucks and a long checklist for the weekend shift`),
    ];
    for (const id of best) await retire(id, 'dock reopened');
    const found = await searched(topic, mode, { limit: 3 });
    expect(sorted(found)).toEqual(sorted(others));
  });
});

describe('validity given when recording', () => {
  it('an experience whose validUntil passed is EXPIRED, one valid from tomorrow PENDING; neither is listed', async () => {
    const past = new Date(Date.now() - 86_400_000);
    const tomorrow = new Date(Date.now() + 86_400_000);
    const expired = await record('inspect the cold store', {
      validFrom: new Date(past.getTime() - 3_600_000),
      validUntil: past,
    });
    const pending = await record('inspect the cold store twice', { validFrom: tomorrow });
    const data = await app.run(
      `query($expired: ID!, $pending: ID!) {
        expired: experience(id: $expired, includeSuperseded: true) { status history { type at } }
        pending: experience(id: $pending, includeSuperseded: true) { status validFrom }
      }`,
      { expired, pending },
    );
    expect(data.expired.status).toBe('EXPIRED');
    expect(data.expired.history.map((event: any) => event.type)).toEqual(['EXPIRED', 'CREATED']);
    expect(data.expired.history[0].at).toBe(past.toISOString());
    expect(data.pending).toEqual({ status: 'PENDING', validFrom: tomorrow.toISOString() });
    const current = await listed();
    expect(current).not.toContain(expired);
    expect(current).not.toContain(pending);
    // As the store will stand the day after tomorrow: the pending one is valid then.
    expect(await listed({ asOf: new Date(tomorrow.getTime() + 86_400_000) })).toContain(pending);
    // As it stood yesterday: the expired one was valid, but neither was recorded yet.
    expect(await listed({ asOf: new Date(past.getTime() - 60_000) })).not.toContain(expired);
  });

  it('refuses validUntil not after validFrom, naming it, and writes nothing', async () => {
    const before = await databaseFingerprint(app.db);
    const at = new Date();
    const error = await errorOf(
      `mutation($input: RecordExperienceInput!) { recordExperience(input: $input) { experienceId } }`,
      {
        input: {
          primaryGoalDescription: 'g',
          subTaskDescription: 's',
          initiatingAgentId: 'a',
          finalOutcome: 'SUCCESS',
          validFrom: at,
          validUntil: at,
        },
      },
    );
    expect(error.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.validUntil' });
    expect(await databaseFingerprint(app.db)).toEqual(before);
  });
});

describe('bad supersedes and retires write nothing', () => {
  const SUPERSEDE = `mutation($id: ID!, $by: ID!) { supersedeExperience(id: $id, by: $by) { experienceId } }`;
  const RETIRE = `mutation($id: ID!, $reason: String!) { retireExperience(id: $id, reason: $reason) { experienceId } }`;
  let x: string;
  let y: string;
  let z: string;
  let free: string;
  let otherTenant: string;

  beforeAll(async () => {
    [x, y, z, free] = [
      await record('count the crates'),
      await record('count the crates twice'),
      await record('count the crates by scanner'),
      await record('weigh the crates'),
    ];
    await supersede(x, y);
    await supersede(y, z);
    otherTenant = (
      await app.run(
        `mutation { recordExperience(input: { primaryGoalDescription: "beta", subTaskDescription: "s", initiatingAgentId: "a", finalOutcome: SUCCESS }) { experienceId } }`,
        {},
        { caller: BETA },
      )
    ).recordExperience.experienceId;
  });

  it.each([
    ['by itself', () => [SUPERSEDE, { id: free, by: free }], { code: 'BAD_USER_INPUT', field: 'by' }],
    [
      'by one it replaced directly (a cycle)',
      () => [SUPERSEDE, { id: y, by: x }],
      { code: 'BAD_USER_INPUT', field: 'by' },
    ],
    [
      'by one it replaced transitively (a cycle)',
      () => [SUPERSEDE, { id: z, by: x }],
      { code: 'BAD_USER_INPUT', field: 'by' },
    ],
    ['by one that is not current', () => [SUPERSEDE, { id: free, by: x }], { code: 'BAD_USER_INPUT', field: 'by' }],
    ['an unknown id', () => [SUPERSEDE, { id: 'nope', by: free }], { code: 'NOT_FOUND', argument: 'id' }],
    ['by an unknown id', () => [SUPERSEDE, { id: free, by: 'nope' }], { code: 'NOT_FOUND', argument: 'by' }],
    [
      'by one of another tenant',
      () => [SUPERSEDE, { id: free, by: otherTenant }],
      { code: 'NOT_FOUND', argument: 'by' },
    ],
    ['a superseded one', () => [SUPERSEDE, { id: x, by: free }], { code: 'CONFLICT' }],
    ['retiring a superseded one', () => [RETIRE, { id: x, reason: 'r' }], { code: 'CONFLICT' }],
    [
      'retiring with a blank reason',
      () => [RETIRE, { id: free, reason: '  ' }],
      { code: 'BAD_USER_INPUT', field: 'reason' },
    ],
    ['retiring an unknown one', () => [RETIRE, { id: 'nope', reason: 'r' }], { code: 'NOT_FOUND', argument: 'id' }],
  ] as Array<[string, () => [string, Record<string, unknown>], Record<string, unknown>]>)(
    '%s',
    async (_name, operation, expected) => {
      const [query, variables] = operation();
      const before = await databaseFingerprint(app.db);
      expect((await errorOf(query, variables)).extensions).toMatchObject(expected);
      expect(await databaseFingerprint(app.db)).toEqual(before);
    },
  );

  it('of two concurrent supersedes of one experience exactly one wins', async () => {
    const target = await record('seal the crates');
    const [b1, b2] = [await record('seal the crates with tape'), await record('seal the crates with wire')];
    const results = await Promise.all([b1, b2].map((by) => app.execute(SUPERSEDE, { id: target, by })));
    expect(results.filter((result) => !result.errors)).toHaveLength(1);
    expect(results.flatMap((result) => result.errors ?? []).map((error) => error.extensions?.code)).toEqual([
      'CONFLICT',
    ]);
    const events = await app.db.collection('memory_events').countDocuments({ memory_id: target, event: 'superseded' });
    expect(events).toBe(1);
  });
});

describe('insights', () => {
  const INSIGHT = 'id status validUntil endedReason supersededBy { id } supersedes { id }';
  const recordInsight = async (text: string) =>
    (
      await app.run(
        `mutation($text: String!) { recordInsight(input: { agentType: PLANNER, type: WARNINGS, insight: $text }) { id } }`,
        { text },
      )
    ).recordInsight.id as string;
  const listInsights = async (args = '') =>
    (
      await app.run(`query { agentInsights(agentType: PLANNER, limit: 100${args}) { insights { id } } }`)
    ).agentInsights.insights.map((insight: any) => insight.id);

  it('supersede and retire an insight; agentInsights and node leave them out unless asked', async () => {
    const old = await recordInsight('Gate B is the fastest');
    const fresh = await recordInsight('Gate C is the fastest');
    const stale = await recordInsight('Call the dock before noon');
    const before = new Date();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const superseded = await app.run(
      `mutation($id: ID!, $by: ID!) { supersedeInsight(id: $id, by: $by, reason: "gate B closed") { ${INSIGHT} } }`,
      { id: old, by: fresh },
    );
    expect(superseded.supersedeInsight).toMatchObject({
      status: 'SUPERSEDED',
      endedReason: 'gate B closed',
      supersededBy: { id: fresh },
    });
    const retired = await app.run(
      `mutation($id: ID!) { retireInsight(id: $id, reason: "no dock calls") { ${INSIGHT} } }`,
      {
        id: stale,
      },
    );
    expect(retired.retireInsight).toMatchObject({ status: 'RETIRED', supersededBy: null });

    const current = await listInsights();
    expect(current).toContain(fresh);
    expect(current).not.toContain(old);
    expect(current).not.toContain(stale);
    expect(await listInsights(', includeSuperseded: true')).toEqual(expect.arrayContaining([old, fresh, stale]));
    expect(await listInsights(`, asOf: "${before.toISOString()}"`)).toEqual(
      expect.arrayContaining([old, fresh, stale]),
    );

    const nodes = await app.run(
      `query($old: ID!, $fresh: ID!) {
        old: node(id: $old) { id }
        kept: node(id: $old, includeSuperseded: true) { ... on AgentInsight { ${INSIGHT} history { type relatedId } } }
        fresh: node(id: $fresh) { ... on AgentInsight { ${INSIGHT} } }
      }`,
      { old, fresh },
    );
    expect(nodes.old).toBeNull();
    expect(nodes.kept.history.map((event: any) => event.type)).toEqual(['CREATED', 'SUPERSEDED']);
    expect(nodes.kept.history[1].relatedId).toBe(fresh);
    expect(nodes.fresh.supersedes).toEqual([{ id: old }]);
  });

  it('an insight recorded with a validUntil that passed is EXPIRED; one not after validFrom is refused', async () => {
    const RECORD = `mutation($input: RecordInsightInput!) { recordInsight(input: $input) { id status validFrom validUntil } }`;
    const until = new Date(Date.now() - 60_000);
    const from = new Date(until.getTime() - 60_000);
    const expired = await app.run(RECORD, {
      input: {
        agentType: 'PLANNER',
        type: 'WARNINGS',
        insight: 'Gate A opens at six',
        validFrom: from,
        validUntil: until,
      },
    });
    expect(expired.recordInsight).toMatchObject({
      status: 'EXPIRED',
      validFrom: from.toISOString(),
      validUntil: until.toISOString(),
    });
    expect(await listInsights()).not.toContain(expired.recordInsight.id);
    const before = await databaseFingerprint(app.db);
    const refused = await errorOf(RECORD, {
      input: {
        agentType: 'PLANNER',
        type: 'WARNINGS',
        insight: 'Gate A opens at seven',
        validFrom: from,
        validUntil: from,
      },
    });
    expect(refused.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.validUntil' });
    expect(await databaseFingerprint(app.db)).toEqual(before);
  });

  it('refuses a cycle, an ended insight and an unknown one through supersedeMemory, writing nothing', async () => {
    const a = await recordInsight('Pallets fit two per lane');
    const b = await recordInsight('Pallets fit three per lane');
    await app.run(`mutation($a: ID!, $b: ID!) { supersedeMemory(kind: INSIGHT, id: $a, by: $b) { kind } }`, { a, b });
    const before = await databaseFingerprint(app.db);
    const MEMORY = `mutation($id: ID!, $by: ID!) { supersedeMemory(kind: INSIGHT, id: $id, by: $by) { kind } }`;
    expect((await errorOf(MEMORY, { id: b, by: a })).extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'by' });
    expect((await errorOf(MEMORY, { id: a, by: b })).extensions).toMatchObject({ code: 'CONFLICT' });
    expect((await errorOf(MEMORY, { id: 'ins_x', by: b })).extensions).toMatchObject({
      code: 'NOT_FOUND',
      argument: 'id',
    });
    expect(await databaseFingerprint(app.db)).toEqual(before);
  });
});

it('refuses a replacement past its expiry (before the TTL pass deletes it), writing nothing', async () => {
  const old = await record('Weigh the outbound crates');
  const expiring = await record('Weigh the outbound crates on scale 2', { ttlSeconds: 1 });
  const insight = await app.run(
    `mutation { recordInsight(input: { agentType: EXECUTOR, type: WARNINGS, insight: "Scale 1 drifts" }) { id } }`,
  );
  const expiringInsight = await app.run(
    `mutation { recordInsight(input: { agentType: EXECUTOR, type: WARNINGS, insight: "Scale 2 drifts", ttlSeconds: 1 }) { id } }`,
  );
  // Past the expiry; the TTL pass (every 60 s) has not deleted them.
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const before = await databaseFingerprint(app.db);
  const experience = await errorOf(
    `mutation($id: ID!, $by: ID!) { supersedeExperience(id: $id, by: $by) { experienceId } }`,
    { id: old, by: expiring },
  );
  expect(experience.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'by' });
  const ofInsight = await errorOf(`mutation($id: ID!, $by: ID!) { supersedeInsight(id: $id, by: $by) { id } }`, {
    id: insight.recordInsight.id,
    by: expiringInsight.recordInsight.id,
  });
  expect(ofInsight.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'by' });
  expect(await databaseFingerprint(app.db)).toEqual(before);
});
