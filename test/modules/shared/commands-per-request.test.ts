import { createTestApp, type TestApp } from '../../support/app';
import { ONE_SEARCH_PER_PARENT, PARENTS, seedRelations, sessionId } from '../../support/relations';

/** One of the benchmark's list operations, at a short and a long list length. */
interface ListCase {
  operation: string;
  lengths: [short: number, long: number];
  query: (length: number) => string;
  /** The items of the list whose length varies, to check that the long run really returned more. */
  items: (data: any) => unknown[];
}

const SIMILAR_EXPERIENCES: ListCase = {
  operation: 'experiences with their similar experiences',
  lengths: [10, PARENTS],
  // `relevance`, not `score`: the score's recency factor moves with the clock between two requests.
  query: (n) =>
    `query { experiences(first: ${n}) { edges { node { experienceId similar(limit: 3) { relevance experience { experienceId } } } } } }`,
  items: (data) => data.experiences.edges,
};

const LISTS: ListCase[] = [
  {
    operation: 'a page of sessions with their agents and last messages',
    lengths: [20, 100],
    query: (n) =>
      `query { sessions(first: ${n}) { totalCount edges { node { sessionId agents { agentId messageCount lastMessage { messageId text } } } } } }`,
    items: (data) => data.sessions.edges,
  },
  {
    operation: "a session's agents with a page of their messages",
    lengths: [5, 25],
    query: (n) =>
      `query { session(id: "${sessionId(7)}") { agents { agentId messages(last: ${n}) { totalCount edges { node { messageId text } } } } } }`,
    items: (data) => data.session.agents[0].messages.edges,
  },
  {
    operation: 'experiences with their sessions',
    lengths: [10, PARENTS],
    query: (n) =>
      `query { experiences(first: ${n}) { totalCount edges { node { experienceId session { sessionId agents { agentId } } } } } }`,
    items: (data) => data.experiences.edges.filter((edge: any) => edge.node.session),
  },
  // With VECTOR_SEARCH=atlas, one $vectorSearch per listed experience (see ONE_SEARCH_PER_PARENT).
  ...(ONE_SEARCH_PER_PARENT ? [] : [SIMILAR_EXPERIENCES]),
  {
    operation: 'agentInsights with the tasks of their evidence',
    lengths: [10, PARENTS],
    query: (n) =>
      `query { agentInsights(agentType: EXECUTOR, limit: ${n}) { count insights { id evidence { taskId task { taskId goal } } } } }`,
    items: (data) => data.agentInsights.insights.filter((insight: any) => insight.evidence[0].task),
  },
  {
    operation: 'tasks with their plans',
    lengths: [10, PARENTS],
    query: (n) => `query { tasks(first: ${n}) { totalCount edges { node { taskId plan { patternId usageCount } } } } }`,
    items: (data) => data.tasks.edges.filter((edge: any) => edge.node.plan),
  },
  {
    operation: 'searchExperiences with the sessions of the hits',
    lengths: [10, PARENTS],
    query: (n) =>
      `query { searchExperiences(query: "resolve the billing request of a customer", limit: ${n}) { score experience { experienceId session { sessionId } } } }`,
    items: (data) => data.searchExperiences,
  },
  {
    operation: 'similarTasks with the plans of the tasks',
    lengths: [10, PARENTS],
    query: (n) =>
      `query { similarTasks(query: "Create a shipment for facility 12", limit: ${n}, minSimilarity: 0) { count tasks { taskId task { plan { patternId } } } } }`,
    items: (data) => data.similarTasks.tasks,
  },
];

describe('database commands per request are constant in the length of every list in the result', () => {
  let app: TestApp;
  const counted = async (query: string) => {
    app.commands.reset();
    const data = await app.run(query);
    return { data, commands: app.commands.count(), modelChecks: app.commands.count('distinct') };
  };

  beforeAll(async () => {
    app = await createTestApp();
    await seedRelations(app.db, (query, variables) => app.run(query, variables));
  });
  afterAll(() => app.close());

  it('a cold request with 50 similar fields checks the model of the stored vectors once, not once per field', async () => {
    // The first `similar` of this database: no check is remembered yet, so 50 fields start it at the same time.
    const cold = await counted(SIMILAR_EXPERIENCES.query(PARENTS));
    const warm = await counted(SIMILAR_EXPERIENCES.query(PARENTS));
    expect(cold.data).toEqual(warm.data);
    // The check: the models present (distinct over the index), then a document recording none (its null key). Counted
    // by its distinct: on a loaded machine a command of the app's background work can land in either request.
    expect(cold.modelChecks).toBe(1);
    expect(warm.modelChecks).toBe(0);
    expect(Math.abs(cold.commands - (warm.commands + 2))).toBeLessThanOrEqual(1);
  });

  it.each(LISTS)('$operation: as many commands for $lengths.1 items as for $lengths.0', async (list) => {
    const [short, long] = list.lengths;
    // Warm one-time checks, and the values searches keep between requests (the ranking's fields of their candidates).
    await counted(list.query(short));
    await counted(list.query(long));
    const few = await counted(list.query(short));
    const many = await counted(list.query(long));
    expect(list.items(few.data)).toHaveLength(short);
    expect(list.items(many.data)).toHaveLength(long);
    expect(many.commands).toBe(few.commands);
  });
});
