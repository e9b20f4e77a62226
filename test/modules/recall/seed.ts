import type { TestApp } from '../../support/app';
import {
  AppendMessagesDocument,
  CreateSessionDocument,
  LearnFromTaskDocument,
  RecordActionDocument,
  RecordExperienceDocument,
  RecordInsightDocument,
  RecordRunTaskDocument,
} from '../../support/generated/graphql';

export const QUERY = 'Ship a parcel to the Berlin warehouse';

/** What `seedStore` wrote: the ids recall may (or must not) choose. */
export interface Seeded {
  /** u1's Berlin shipment (success) and u2's Munich one (failure): current, relevant. */
  berlin: string;
  munich: string;
  /** Relevant but retired: never recalled. */
  retired: string;
  /** Relevant, of the executor. */
  carrierInsight: string;
  /** Shares no term with the query. */
  meetingInsight: string;
  /** The plan pattern the three shipping tasks (one goal) were learned into. */
  planId: string;
  /** The user's request in session chat-1 (`<sessionId>/<agentId>/<messageId>`); chat-2 talks of the weather. */
  request: string;
}

/**
 * A small store with every part of recall: experiences (one retired), insights, three shipping tasks learned into one
 * plan (validate_address → create_shipment) whose runs called create_shipment 3 times with 2 failures (a tool
 * warning) and validate_address 3 times without failure (none), an unrelated meeting-room task, and two
 * conversations of agent `shipper` (one asking for Berlin shipments, one about the weather).
 */
export async function seedStore(app: TestApp): Promise<Seeded> {
  const experience = async (input: Record<string, unknown>) =>
    (
      await app.run(RecordExperienceDocument, {
        input: { subTaskDescription: 'Create the shipment', initiatingAgentId: 'shipper', ...input } as never,
      })
    ).recordExperience.experienceId;
  const berlin = await experience({
    primaryGoalDescription: 'Ship a parcel to the Berlin warehouse',
    finalOutcome: 'SUCCESS',
    outputSummary: 'Shipment created with the carrier after validating the address',
    keyDecisionsMade: ['Validate the address before calling create_shipment'],
    userId: 'u1',
  });
  const munich = await experience({
    primaryGoalDescription: 'Ship a parcel to the Munich warehouse',
    finalOutcome: 'FAILURE',
    outputSummary: 'The carrier rejected the address: no postcode',
    userId: 'u2',
  });
  const retired = await experience({
    primaryGoalDescription: 'Ship a parcel to the Berlin warehouse by sea',
    finalOutcome: 'SUCCESS',
    outputSummary: 'Sent via the old Hamburg route',
  });
  await app.run(`mutation($id: ID!) { retireExperience(id: $id, reason: "route closed") { experienceId } }`, {
    id: retired,
  });
  await experience({
    primaryGoalDescription: 'Book a meeting room for Monday',
    subTaskDescription: 'Reserve the room',
    finalOutcome: 'SUCCESS',
  });

  const insight = async (text: string) =>
    (await app.run(RecordInsightDocument, { input: { agentType: 'EXECUTOR', type: 'WARNINGS', insight: text } }))
      .recordInsight.id;
  const carrierInsight = await insight('The carrier rejects a parcel address without a postcode');
  const meetingInsight = await insight('Rooms for meetings are booked a day ahead');

  let planId = '';
  const shipping = [
    ['ship-1', 'Ship a parcel to the Berlin warehouse', 'FAILURE'],
    ['ship-2', 'Ship a parcel to the Berlin warehouse today', 'FAILURE'],
    ['ship-3', 'Ship two parcels to the Berlin warehouse', 'SUCCESS'],
  ] as const;
  for (const [taskId, query, outcome] of shipping) {
    await app.run(RecordRunTaskDocument, {
      input: {
        taskId,
        originalQuery: query,
        goal: 'Ship a parcel to the Berlin warehouse',
        status: 'PAUSED',
        steps: [{ action: 'validate_address' }, { action: 'create_shipment' }],
      },
    });
    await app.run(RecordActionDocument, {
      taskId,
      input: {
        mode: 'FAST',
        toolCalls: [
          { name: 'validate_address', outcome: 'SUCCESS', executionTimeMs: 20, result: 'ok' },
          {
            name: 'create_shipment',
            outcome: outcome,
            executionTimeMs: 400,
            result: outcome === 'SUCCESS' ? 'created' : 'Carrier rejected the address',
          },
        ],
      },
    });
    const learned = await app.run(LearnFromTaskDocument, {
      input: {
        taskId,
        status: 'COMPLETED',
        metrics: { executionTime: 500, stepsCompleted: 2 },
        countToolExecutions: false,
      },
    });
    planId = learned.learnFromTask.patternId!;
  }
  await app.run(RecordRunTaskDocument, {
    input: { taskId: 'room-1', originalQuery: 'Book a meeting room', goal: 'Book a meeting room', status: 'COMPLETED' },
  });
  for (const [sessionId, texts] of [
    ['chat-1', ['Please always ship my parcels to the Berlin warehouse with the express carrier', 'Noted.']],
    ['chat-2', ['What is the weather in Rome tomorrow?', 'Sunny, 24 degrees.']],
  ] as const) {
    await app.run(CreateSessionDocument, { input: { sessionId } });
    await app.run(
      `mutation($s: ID!) { upsertAgent(sessionId: $s, input: { agentId: "shipper", agentData: {} }) { agentId } }`,
      {
        s: sessionId,
      },
    );
    await app.run(AppendMessagesDocument, {
      sessionId,
      agentId: 'shipper',
      inputs: [
        { role: 'USER', content: texts[0] },
        { role: 'ASSISTANT', content: texts[1] },
      ],
    });
  }
  return { berlin, munich, retired, carrierInsight, meetingInsight, planId, request: 'chat-1/shipper/0' };
}
