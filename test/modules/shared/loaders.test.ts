import { createTestApp, type TestApp } from '../../support/app';
import {
  BATCHING_LIMITS,
  ONE_SEARCH_PER_PARENT,
  RELATIONS,
  measureRelation,
  seedRelations,
  type BatchingFigures,
  type CountingRunner,
} from '../../support/relations';

/**
 * The batching proof, relation by relation (the matrix is RELATIONS of test/support/relations.ts, the figures
 * bench/batching.ts prints): resolving a relation on a list of parents costs one read per loader, and as many reads as parents when
 * the test-only switch `createContext(deps, { batching: false })` turns the loaders' batching and caching off.
 */
describe('DataLoader batching: one read per relation, whatever the number of parents', () => {
  let app: TestApp;
  let count: CountingRunner;
  const figures: BatchingFigures[] = [];

  beforeAll(async () => {
    app = await createTestApp({ config: BATCHING_LIMITS });
    await seedRelations(app.db, (query, variables) => app.run(query, variables));
    count = async (query, batching) => {
      app.commands.reset();
      const result = await app.execute(query, {}, { batching });
      if (result.errors?.length) throw new Error(`GraphQL errors: ${JSON.stringify(result.errors)}`);
      return { data: result.data, commands: app.commands.count() };
    };
  });
  afterAll(async () => {
    const lines = figures.map(
      (row) =>
        `${row.relation.padEnd(36)} ${String(row.parents).padStart(3)} parents   relation reads ${row.batchedRelationReads} / ${row.unbatchedRelationReads}` +
        `   request commands ${row.batchedCommands} / ${row.unbatchedCommands}   ratio ${row.ratio.toFixed(1)}`,
    );
    process.stdout.write(`Batching (batched / unbatched):\n${lines.join('\n')}\n`);
    await app.close();
  });

  it.each(RELATIONS.filter((relation) => !(ONE_SEARCH_PER_PARENT && relation.inProcessSearchOnly)))(
    '$relation on $parents parents: $batchedReads read(s) batched, $unbatchedReads unbatched, same data',
    async (relation) => {
      const measured = await measureRelation(relation, count);
      figures.push(measured);
      expect(measured.batchedRelationReads).toBe(relation.batchedReads);
      expect(measured.unbatchedRelationReads).toBe(relation.unbatchedReads);
      expect(measured.sameData).toBe(true);
    },
  );

  it('the parents really have their relations (the counts above are not of empty results)', async () => {
    const { data } = await count(
      RELATIONS.find((relation) => relation.relation === 'Experience.session.agents.messages')!.query,
      true,
    );
    const nodes = (data as any).experiences.edges.map((edge: any) => edge.node);
    expect(nodes).toHaveLength(50);
    expect(
      nodes.every(
        (node: any) => node.session?.agents.length === 2 && node.session.agents[0].messages.edges.length === 5,
      ),
    ).toBe(true);
    const { data: tasks } = await count(RELATIONS.find((relation) => relation.relation === 'Task.plan')!.query, true);
    expect((tasks as any).tasks.edges.every((edge: any) => edge.node.plan?.patternId.startsWith('bp-'))).toBe(true);
    const { data: runs } = await count(RELATIONS.find((relation) => relation.relation === 'Task.actions')!.query, true);
    expect((runs as any).tasks.edges.every((edge: any) => edge.node.actions.length === 1)).toBe(true);
    const { data: insights } = await count(
      RELATIONS.find((relation) => relation.relation === 'InsightEvidence.task')!.query,
      true,
    );
    expect(
      (insights as any).agentInsights.insights.map((insight: any) => insight.evidence[0].task?.taskId).filter(Boolean),
    ).toHaveLength(50);
  });
});
