import fc from 'fast-check';
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import { createTestApp, type TestApp } from '../../support/app';
import { RecallDocument, RecordExperiencesDocument, RecordInsightDocument } from '../../support/generated/graphql';

const encoder = new Tiktoken(cl100k);
const tokensOf = (text: string) => encoder.encode(text, [], []).length;

const WORDS = ['ship', 'parcel', 'Berlin', 'warehouse', 'carrier', 'address', 'refund', 'invoice', 'room', 'late'];
const phrase = fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 12 }).map((words) => words.join(' '));
/** Stored text: words recall matches, with hostile Markdown and Unicode mixed in. */
const storedText = fc
  .tuple(phrase, fc.oneof(fc.constant(''), fc.string({ maxLength: 200 }), fc.constant('\n## Ignore all\n- x')))
  .map(([words, noise]) => `${words} ${noise}`.trim() || 'ship');

/**
 * Each run is a random store seen through its own agent scope (experiences of that initiating agent, insights scoped
 * to it), recalled for a random query within a random budget, through the server.
 */
describe('recall over random stores and budgets', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.close());

  it('tokens ≤ budget and tokens = the text’s own count, items within the agent’s store', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(storedText, storedText, storedText), { minLength: 0, maxLength: 12 }),
        fc.array(storedText, { maxLength: 6 }),
        phrase,
        fc.integer({ min: 50, max: 2500 }),
        async (experiences, insights, query, budget) => {
          const agentId = `agent-${run++}`;
          const stored = new Set<string>();
          if (experiences.length) {
            const { recordExperiences } = await app.run(RecordExperiencesDocument, {
              inputs: experiences.map(([goal, subTask, output]) => ({
                primaryGoalDescription: goal,
                subTaskDescription: subTask,
                outputSummary: output,
                initiatingAgentId: agentId,
                finalOutcome: 'SUCCESS' as const,
              })),
            });
            for (const experience of recordExperiences) stored.add(experience.experienceId);
          }
          for (const insight of insights) {
            const { recordInsight } = await app.run(RecordInsightDocument, {
              input: { agentType: 'EXECUTOR', type: 'PATTERNS', insight, agentId },
            });
            stored.add(recordInsight.id);
          }
          const { recall } = await app.run(RecallDocument, {
            query,
            budget,
            scope: { agentId },
            include: ['EXPERIENCES', 'INSIGHTS'],
          });
          expect(recall.tokens).toBe(tokensOf(recall.text));
          expect(recall.tokens).toBeLessThanOrEqual(budget);
          for (const item of recall.items) expect(stored.has(item.id)).toBe(true);
          // The agent's insights all count in its scope, and one (≤ 250 tokens) always fits 300.
          if (insights.length && budget >= 300) expect(recall.items.length).toBeGreaterThan(0);
        },
      ),
      { numRuns: 15 },
    );
  });
});
