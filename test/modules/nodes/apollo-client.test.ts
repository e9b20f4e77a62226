import { ApolloClient, HttpLink, InMemoryCache } from '@apollo/client';
import { relayStylePagination } from '@apollo/client/utilities';
import { createTestApp, type TestApp } from '../../support/app';
import { scrape } from '../../support/metrics';
import {
  ChatAddFeedbackDocument,
  ChatAppendDocument,
  ChatFeedbacksDocument,
  ChatSessionDocument,
  ExperienceCardDocument,
  ExperienceRateDocument,
  ExperienceSummariseDocument,
  InsightListDocument,
  InsightRecordDocument,
  InsightValidateDocument,
  RunLearnDocument,
  RunRecordActionDocument,
  RunTaskDocument,
  RunTaskStepsDocument,
  RunToolFiguresDocument,
  type ChatSessionQuery,
} from '../../support/generated/graphql';

/**
 * A frontend's view: the real @apollo/client over HTTP with its default normalisation (`__typename` and `id`; no
 * keyFields, no update functions), `relayStylePagination` for the paged messages.
 */
describe('@apollo/client keeps its cache current from the API alone', () => {
  let app: TestApp;
  let client: ApolloClient;
  let url: string;
  const page = { id: 's1', first: 2 };
  const agentOf = (data: ChatSessionQuery | null | undefined, agentId: string) =>
    data!.session.agents.find((agent) => agent.agentId === agentId)!;

  beforeAll(async () => {
    app = await createTestApp();
    // Both sessions have an agent `planner`: agentIds are unique only inside a session.
    for (const [sessionId, messages] of [
      ['s1', 5],
      ['s2', 1],
    ] as const) {
      await app.run(`mutation { createSession(input: { sessionId: "${sessionId}" }) { sessionId } }`);
      await app.run(
        `mutation ($inputs: [AppendMessageInput!]!) {
          upsertAgent(sessionId: "${sessionId}", input: { agentId: "planner", agentData: {} }) { agentId }
          appendMessages(sessionId: "${sessionId}", agentId: "planner", inputs: $inputs) { messageId } }`,
        {
          inputs: Array.from({ length: messages }, (_, index) => ({
            role: 'USER',
            content: `${sessionId} ${index + 1}`,
          })),
        },
      );
    }
    await app.run(`mutation { createSession(input: { sessionId: "s3" }) { sessionId } }`);
    await app.run(`mutation { addFeedback(sessionId: "s3", input: { rating: UP, comment: "earlier" }) { comment } }`);
    await app.run(
      `mutation { recordTask(input: { taskId: "t1", originalQuery: "q", goal: "g", status: PAUSED }) { taskId }
        recordAction(taskId: "t1", input: { mode: FAST, thinking: "first", toolCalls: [{ name: "list", outcome: FAILURE }] }) { taskId }
        t2: recordTask(input: { taskId: "t2", originalQuery: "q", goal: "g", status: PAUSED, steps: [{ action: "list" }] }) { taskId }
        t3: recordTask(input: { taskId: "t3", originalQuery: "q", goal: "g", status: PAUSED, steps: [{ action: "read" }] }) { taskId }
        recordExperience(input: { experienceId: "e1", primaryGoalDescription: "g", subTaskDescription: "s",
          initiatingAgentId: "planner", finalOutcome: SUCCESS, outputSummary: "draft" }) { experienceId }
        recordInsight(input: { agentType: PLANNER, type: PATTERNS, insight: "list before read" }) { id } }`,
    );
    url = await app.server.listen(0, '127.0.0.1');
    client = new ApolloClient({
      link: new HttpLink({ uri: url, fetch }),
      cache: new InMemoryCache({ typePolicies: { Agent: { fields: { messages: relayStylePagination() } } } }),
    });
  });
  afterAll(async () => {
    client.stop();
    await app.close();
  });

  it('queries a session with its agents and a page of messages, and fetchMore appends the next page', async () => {
    const watched = client.watchQuery({ query: ChatSessionDocument, variables: page });
    const subscription = watched.subscribe(() => undefined);
    try {
      const { data } = await watched.refetch();
      const first = agentOf(data, 'planner').messages;
      expect(first.edges.map((edge) => edge.node.text)).toEqual(['s1 1', 's1 2']);
      expect(first.pageInfo.hasNextPage).toBe(true);

      await watched.fetchMore({ variables: { after: first.pageInfo.endCursor } });
      const merged = agentOf(client.readQuery({ query: ChatSessionDocument, variables: page }), 'planner').messages;
      expect(merged.edges.map((edge) => edge.node.text)).toEqual(['s1 1', 's1 2', 's1 3', 's1 4']);
    } finally {
      subscription.unsubscribe();
    }
  });

  it("is answered by the fast path, its clientLibrary extension and all, from a query's second request on", async () => {
    const fastPathAnswers = async () => (await scrape(url)).value('hindsight_graphql_fast_path_total');
    const before = await fastPathAnswers();
    for (let i = 0; i < 3; i++)
      await client.query({ query: ChatSessionDocument, variables: page, fetchPolicy: 'network-only' });
    // The text is new to the fast path: the first request parses and compiles it there, and every one is answered.
    expect((await fastPathAnswers()) - before).toBe(3);
  });

  it("the same agentId in another session is another cache entry: neither overwrites the other's", async () => {
    const other = await client.query({ query: ChatSessionDocument, variables: { id: 's2', first: 2 } });
    const mine = client.readQuery({ query: ChatSessionDocument, variables: page });
    expect(agentOf(other.data, 'planner').messageCount).toBe(1);
    expect(agentOf(mine, 'planner').messageCount).toBe(5);
    expect(agentOf(other.data, 'planner').id).not.toBe(agentOf(mine, 'planner').id);
  });

  it("the first step of another task's plan is its own: a plan step's id (step-1) is not a cache key", async () => {
    await client.query({ query: RunTaskStepsDocument, variables: { id: 't2' } });
    await client.query({ query: RunTaskStepsDocument, variables: { id: 't3' } });
    const steps = (id: string) => client.readQuery({ query: RunTaskStepsDocument, variables: { id } })!.task!.steps;
    expect(steps('t2')).toEqual([{ __typename: 'PlanStep', stepId: 'step-1', action: 'list' }]);
    expect(steps('t3')).toEqual([{ __typename: 'PlanStep', stepId: 'step-1', action: 'read' }]);
  });

  it("appendMessage updates the cached agent's messageCount and lastMessage and the session's updatedAt", async () => {
    const before = client.readQuery({ query: ChatSessionDocument, variables: page })!;
    await new Promise((resolve) => setTimeout(resolve, 5)); // updatedAt has millisecond resolution
    const { data } = await client.mutate({
      mutation: ChatAppendDocument,
      variables: { sessionId: 's1', agentId: 'planner', text: 'one more' },
    });
    const after = client.readQuery({ query: ChatSessionDocument, variables: page })!;
    expect(agentOf(after, 'planner').messageCount).toBe(agentOf(before, 'planner').messageCount + 1);
    expect(agentOf(after, 'planner').lastMessage).toEqual({ __typename: 'Message', id: data!.appendMessage.id });
    expect(Date.parse(after.session.updatedAt)).toBeGreaterThan(Date.parse(before.session.updatedAt));
    // The other session's agent of the same agentId is untouched.
    const other = client.readQuery({ query: ChatSessionDocument, variables: { id: 's2', first: 2 } });
    expect(agentOf(other, 'planner').messageCount).toBe(1);
  });

  // The same for the other writes a frontend shows: each answer, normalised by id, updates what is cached.

  it("addFeedback adds the entry to the cached session's feedbacks and refreshes its updatedAt", async () => {
    const before = (await client.query({ query: ChatFeedbacksDocument, variables: { id: 's3' } })).data!.session;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const { data } = await client.mutate({
      mutation: ChatAddFeedbackDocument,
      variables: { sessionId: 's3', rating: 'DOWN', comment: 'wrong answer' },
    });
    const after = client.readQuery({ query: ChatFeedbacksDocument, variables: { id: 's3' } })!.session;
    expect(after.feedbacks).toEqual([
      ...before.feedbacks,
      { __typename: 'Feedback', id: data!.addFeedback.id, rating: 'DOWN', comment: 'wrong answer' },
    ]);
    expect(Date.parse(after.updatedAt)).toBeGreaterThan(Date.parse(before.updatedAt));
  });

  it("recordAction adds the iteration, with its tool calls, to the cached task's actions and counts the tool's figures", async () => {
    const before = (await client.query({ query: RunTaskDocument, variables: { id: 't1' } })).data!.task!;
    expect(before.actions.map((action) => action.thinking)).toEqual(['first']);
    const figures = () => client.readQuery({ query: RunToolFiguresDocument, variables: { toolName: 'list' } })!;
    await client.query({ query: RunToolFiguresDocument, variables: { toolName: 'list' } });
    const executions = figures().toolPerformance.totalExecutions;
    await client.mutate({
      mutation: RunRecordActionDocument,
      variables: {
        taskId: 't1',
        thinking: 'second',
        toolCalls: [
          { name: 'read', outcome: 'SUCCESS' },
          { name: 'list', outcome: 'SUCCESS' },
        ],
      },
    });
    const after = client.readQuery({ query: RunTaskDocument, variables: { id: 't1' } })!.task!;
    expect(
      after.actions.map((action) => [action.iteration, action.thinking, action.toolCalls.map((call) => call.name)]),
    ).toEqual([
      [0, 'first', ['list']],
      [1, 'second', ['read', 'list']],
    ]);
    expect(figures().toolPerformance.totalExecutions).toBe(executions + 1);
  });

  it("learnFromTask sets the cached task's learnedAt and plan", async () => {
    const before = (await client.query({ query: RunTaskDocument, variables: { id: 't2' } })).data!.task!;
    expect(before).toMatchObject({ learnedAt: null, plan: null });
    const { data } = await client.mutate({ mutation: RunLearnDocument, variables: { taskId: 't2' } });
    const after = client.readQuery({ query: RunTaskDocument, variables: { id: 't2' } })!.task!;
    expect(after.learnedAt).not.toBeNull();
    expect(after.plan).toEqual({ __typename: 'PlanPattern', id: data!.learnFromTask.task!.plan!.id, usageCount: 1 });
  });

  it('addExperienceFeedback and updateExperience change the cached experience', async () => {
    const before = (await client.query({ query: ExperienceCardDocument, variables: { id: 'e1' } })).data!.experience!;
    expect(before).toMatchObject({ outputSummary: 'draft', feedbackSignals: null });
    await client.mutate({
      mutation: ExperienceRateDocument,
      variables: { id: 'e1', signals: { userRating: 4, comment: 'useful' } },
    });
    await client.mutate({ mutation: ExperienceSummariseDocument, variables: { id: 'e1', outputSummary: 'final' } });
    const after = client.readQuery({ query: ExperienceCardDocument, variables: { id: 'e1' } })!.experience!;
    expect(after).toMatchObject({ outputSummary: 'final', feedbackSignals: { userRating: 4, comment: 'useful' } });
  });

  it('validateInsight and recordInsight of the same text change the cached insight', async () => {
    const list = () =>
      client
        .readQuery({ query: InsightListDocument, variables: { agentType: 'PLANNER' } })!
        .agentInsights.insights.find((insight) => insight.insight === 'list before read')!;
    await client.query({ query: InsightListDocument, variables: { agentType: 'PLANNER' } });
    const before = list();
    expect(before.lastValidated).toBeNull();
    await client.mutate({ mutation: InsightValidateDocument, variables: { id: before.id, valid: true } });
    const validated = list();
    expect(validated.confidence).toBeGreaterThan(before.confidence);
    expect(validated.lastValidated).not.toBeNull();
    await client.mutate({
      mutation: InsightRecordDocument,
      variables: {
        input: {
          agentType: 'PLANNER',
          type: 'PATTERNS',
          insight: 'list before read',
          evidence: [{ taskId: 't1', description: 'listed first' }],
        },
      },
    });
    expect(list().evidenceCount).toBe(before.evidenceCount + 1);
  });
});
