import { ApolloClient, HttpLink, InMemoryCache } from '@apollo/client';
import { relayStylePagination } from '@apollo/client/utilities';
import { createTestApp, type TestApp } from '../../support/app';
import { ChatAppendDocument, ChatSessionDocument, type ChatSessionQuery } from '../../support/generated/graphql';

/**
 * A frontend's view: the real @apollo/client over HTTP with its default normalisation (`__typename` and `id`; no
 * keyFields, no update functions), `relayStylePagination` for the paged messages.
 */
describe('@apollo/client keeps its cache current from the API alone', () => {
  let app: TestApp;
  let client: ApolloClient;
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
    const url = await app.server.listen(0, '127.0.0.1');
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

  it("the same agentId in another session is another cache entry: neither overwrites the other's", async () => {
    const other = await client.query({ query: ChatSessionDocument, variables: { id: 's2', first: 2 } });
    const mine = client.readQuery({ query: ChatSessionDocument, variables: page });
    expect(agentOf(other.data, 'planner').messageCount).toBe(1);
    expect(agentOf(mine, 'planner').messageCount).toBe(5);
    expect(agentOf(other.data, 'planner').id).not.toBe(agentOf(mine, 'planner').id);
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
});
