/**
 * A history of 52 recorded tasks for the agent-history tests, in the shape of seed 002's examples: shipments for
 * facilities (three plans), order listings, invoices, driver assignments, weather lookups, subscription
 * cancellations and a few paused tasks. `learn` says how each run ended (what learnFromTask is told); `live` runs
 * were reported to tool performance by the executor as they happened (with durations), so learning skips them.
 */

export const DAY = 86_400_000;

export interface FixtureTask {
  input: {
    taskId: string;
    originalQuery: string;
    goal: string;
    planId: string;
    steps: Array<{ action: string }>;
    status: 'COMPLETED' | 'FAILED' | 'PAUSED';
    successMetrics: { executionTime: number; stepsCompleted: number; retries: number; userInputsRequired: number };
    agentType: 'THOUGHT' | 'PLANNER' | 'EXECUTOR';
    context: string;
    createdAt: string;
  };
  learn: { insights: string[] } | null;
  live: Array<{ toolName: string; success: boolean; durationMs: number; error?: string; context: string; taskId: string }>;
}

export const LOOKUP_PLAN = ['list_facilities', 'create_shipment'];
export const DIRECT_PLAN = ['create_shipment'];
export const VALIDATED_PLAN = ['list_facilities', 'validate_address', 'create_shipment'];
export const SHORT_CODE_ERROR = 'Invalid facilityId: expected ObjectId, got shortCode';

const FACILITIES = ['HAN', 'BER', 'PAR', 'LON', 'MAD', 'ROM', 'VIE', 'AMS', 'OSL', 'CPH', 'DUB', 'LIS'];
const CITIES = ['Berlin', 'Paris', 'Hamburg', 'Munich', 'Vienna', 'Zurich', 'Lyon', 'Milan'];

let counter = 0;
function task(
  goal: string,
  steps: string[],
  outcome: { status: 'COMPLETED' | 'FAILED' | 'PAUSED'; stepsCompleted: number; executionTime: number; daysAgo: number },
  extra: { query?: string; context?: string; insights?: string[]; live?: boolean } = {},
): FixtureTask {
  counter++;
  const taskId = `690b${counter.toString(16).padStart(20, '0')}`;
  const live =
    extra.live && outcome.status !== 'PAUSED'
      ? steps.slice(0, outcome.stepsCompleted + (outcome.status === 'FAILED' ? 1 : 0)).map((action, i) => {
          const failed = outcome.status === 'FAILED' && i === outcome.stepsCompleted;
          return {
            toolName: action,
            success: !failed,
            durationMs: failed ? 300 : 800,
            ...(failed ? { error: SHORT_CODE_ERROR } : {}),
            context: extra.context ?? 'facility_management',
            taskId,
          };
        })
      : [];
  return {
    input: {
      taskId,
      originalQuery: extra.query ?? goal,
      goal,
      planId: `690c${counter.toString(16).padStart(20, '0')}`,
      steps: steps.map((action) => ({ action })),
      status: outcome.status,
      successMetrics: { executionTime: outcome.executionTime, stepsCompleted: outcome.stepsCompleted, retries: 0, userInputsRequired: 0 },
      agentType: 'EXECUTOR',
      context: extra.context ?? 'facility_management',
      createdAt: new Date(Date.now() - outcome.daysAgo * DAY).toISOString(),
    },
    learn: outcome.status === 'PAUSED' ? null : { insights: extra.insights ?? [] },
    live,
  };
}

export function historyFixture(): FixtureTask[] {
  counter = 0;
  const tasks: FixtureTask[] = [];
  // 12 shipments planned with a facility lookup: 11 completed, the 5th failed at create_shipment.
  FACILITIES.forEach((code, i) => {
    const failed = i === 4;
    tasks.push(
      task(
        `Create a shipment for facility ${code}`,
        LOOKUP_PLAN,
        { status: failed ? 'FAILED' : 'COMPLETED', stepsCompleted: failed ? 1 : 2, executionTime: 1000 + 100 * i, daysAgo: 1 + i },
        failed ? { insights: ['Facility lookup returned two matches'] } : {},
      ),
    );
  });
  // 6 shipments created directly with the short code: 3 completed, 3 failed; reported live by the executor.
  ['HAN', 'BER', 'PAR', 'LON', 'MAD', 'ROM'].forEach((code, i) => {
    const failed = i % 2 === 1;
    tasks.push(
      task(
        `Create a shipment for facility ${code}`,
        DIRECT_PLAN,
        { status: failed ? 'FAILED' : 'COMPLETED', stepsCompleted: failed ? 0 : 1, executionTime: 400, daysAgo: 2 + i },
        { query: `ship to ${code} now`, live: true, ...(failed ? { insights: ['Using shortCode for facilityId fails'] } : {}) },
      ),
    );
  });
  // 3 older shipments with address validation: all completed, 60–62 days ago.
  ['HAN', 'BER', 'PAR'].forEach((code, i) =>
    tasks.push(task(`Create a shipment for facility ${code}`, VALIDATED_PLAN, { status: 'COMPLETED', stepsCompleted: 3, executionTime: 2000, daysAgo: 60 + i })),
  );
  CITIES.forEach((city, i) =>
    tasks.push(
      task(`List orders in ${city}`, ['search_orders'], { status: 'COMPLETED', stepsCompleted: 1, executionTime: 300, daysAgo: 3 + i }, {
        query: `Which orders do we have in ${city}?`,
        context: 'order_management',
      }),
    ),
  );
  for (let i = 0; i < 8; i++) {
    const failed = i === 7;
    tasks.push(
      task(
        `Create an invoice for customer C-${1001 + i}`,
        ['find_customer', 'create_invoice'],
        { status: failed ? 'FAILED' : 'COMPLETED', stepsCompleted: failed ? 1 : 2, executionTime: 900, daysAgo: 4 + i },
        { context: 'billing' },
      ),
    );
  }
  ['Maria', 'Jonas', 'Lea', 'Tom', 'Ana', 'Ben'].forEach((name, i) =>
    tasks.push(
      task(`Assign driver ${name} to route R-${10 + i}`, ['find_driver', 'assign_route'], { status: 'COMPLETED', stepsCompleted: 2, executionTime: 700, daysAgo: 5 + i }, {
        context: 'fleet',
      }),
    ),
  );
  ['Paris', 'Rome', 'Oslo', 'Lima'].forEach((city, i) =>
    tasks.push(task(`Get weather in ${city} for 3 days`, ['get_weather'], { status: 'COMPLETED', stepsCompleted: 1, executionTime: 250, daysAgo: 6 + i }, { context: 'weather' })),
  );
  tasks.push(
    task('Cancel the subscription of customer C-2001', ['find_customer', 'cancel_subscription'], { status: 'COMPLETED', stepsCompleted: 2, executionTime: 650, daysAgo: 9 }, {
      query: 'Cancel the subscription of customer C-2001 because of double billing',
      context: 'billing',
    }),
    task('Cancel the subscription of customer C-2002', ['find_customer', 'cancel_subscription'], { status: 'COMPLETED', stepsCompleted: 2, executionTime: 610, daysAgo: 12 }, {
      query: 'Terminate the plan of customer C-2002 after the move abroad',
      context: 'billing',
    }),
  );
  ['Create a return label for order 5531', 'Create a return label for order 5532', 'Merge customer C-3001 into C-3002'].forEach((goal, i) =>
    tasks.push(task(goal, ['find_order', 'create_label'], { status: 'PAUSED', stepsCompleted: 1, executionTime: 100, daysAgo: 1 + i }, { context: 'returns' })),
  );
  return tasks;
}

interface Runner {
  run<TData = Record<string, any>>(query: string, variables?: Record<string, unknown>): Promise<TData>;
}

/**
 * Records every fixture task, reports the live tool calls, and learns from every finished task (live ones with
 * countToolExecutions: false, since their calls were reported already).
 */
export async function recordHistory(app: Runner, op: (name: string) => string, tasks: FixtureTask[]): Promise<void> {
  for (const { input, live } of tasks) {
    await app.run(op('RecordTask'), { input });
    if (live.length) await app.run(op('RecordToolExecutions'), { inputs: live });
  }
  for (const { input, learn, live } of tasks) {
    if (!learn) continue;
    await app.run(op('LearnFromTask'), {
      input: {
        taskId: input.taskId,
        planId: input.planId,
        status: input.status,
        metrics: input.successMetrics,
        insights: learn.insights,
        countToolExecutions: live.length === 0,
      },
    });
  }
}
