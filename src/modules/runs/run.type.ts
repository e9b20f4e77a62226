import { Field, Float, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import {
  ActionMode,
  ActionProgress,
  Relevance,
  TASKS_COLLECTION,
  ToolOutcome,
  type ActionDocument,
} from '../tasks/task.document';
import { Task } from '../tasks/task.type';
import { Node } from '../shared/node';
import {
  storedBoolean,
  storedDate,
  storedEnum,
  storedEnumOrNull,
  storedFloatOrNull,
  storedInt,
  storedObject,
  storedObjectEntries,
  storedText,
  StoredReader,
} from '../shared/stored-values';

export { ActionMode, ActionProgress, Relevance, ToolOutcome };

registerEnumType(ActionMode, {
  name: 'ActionMode',
  description: "FAST: thinking only; DEEP: also planning and reflection. Stored as 'fast' or 'deep'.",
});
registerEnumType(ToolOutcome, {
  name: 'ToolOutcome',
  description:
    'SUCCESS: expected output; FAILURE: ran but failed (e.g. file not found); ERROR: crashed; TIMEOUT: exceeded its time limit.',
});
registerEnumType(ActionProgress, {
  name: 'ActionProgress',
  description: "How the iteration moved the goal; stored lower-case, '' (null here) when not assessed.",
});
registerEnumType(Relevance, {
  name: 'Relevance',
  description: "Goal relevance of a tool call; stored lower-case, '' (null here) when not rated.",
});

@ObjectType({ simpleResolvers: true, description: 'What the agent believes and how the iteration tests it (phase 2).' })
export class Hypothesis {
  @Field()
  belief!: string;

  @Field()
  test!: string;
}

@ObjectType({
  simpleResolvers: true,
  implements: Node,
  description: 'One tool call of an iteration (seed 004 tool_calls).',
})
export class ToolCall {
  @Field({ description: 'The tool as registered (e.g. "search", "read_file").' })
  name!: string;

  @Field(() => GraphQLJSONObject, { description: 'The arguments as passed.' })
  args!: Record<string, unknown>;

  @Field({ description: 'The tool response, cut to about 1,000 characters on write.' })
  result!: string;

  @Field({ description: 'True when the result was cut on write.' })
  resultTruncated!: boolean;

  @Field(() => ToolOutcome)
  outcome!: ToolOutcome;

  @Field(() => Float, {
    nullable: true,
    description: 'Milliseconds (stored as execution_time); null when not reported.',
  })
  executionTimeMs!: number | null;

  @Field({ description: 'Key findings relevant to the goal (phase 2; empty in phase 1).' })
  insights!: string;

  @Field({ description: 'Strategic learning about the approach (phase 2; empty in phase 1).' })
  learning!: string;

  @Field(() => Relevance, { nullable: true, description: 'Goal relevance (phase 2); null when not rated.' })
  relevance!: Relevance | null;

  /** Where it is stored (an iteration's list of calls is written once): its global id and `action` read them. */
  taskId!: string;
  iteration!: number;
  index!: number;
}

@ObjectType({
  simpleResolvers: true,
  implements: Node,
  description: "One iteration of an agent's run (seed 004 actions).",
})
export class Action {
  @Field(() => Int, { description: '0-based, sequential per task.' })
  iteration!: number;

  @Field()
  timestamp!: Date;

  @Field(() => ActionMode)
  mode!: ActionMode;

  @Field({ description: 'Core reasoning output (all modes).' })
  thinking!: string;

  @Field({ description: 'Strategic planning (DEEP only; empty in FAST).' })
  planning!: string;

  @Field({ description: 'Retrospective analysis (DEEP only; empty in FAST).' })
  reflection!: string;

  @Field({ description: 'The persistent strategy spanning iterations.' })
  approach!: string;

  @Field(() => [ToolCall])
  toolCalls!: ToolCall[];

  @Field({ description: 'How the iteration advances the goal (phase 2; empty in phase 1).' })
  synthesis!: string;

  @Field(() => ActionProgress, { nullable: true, description: 'Trajectory (phase 2); null when not assessed.' })
  progress!: ActionProgress | null;

  @Field(() => Hypothesis)
  hypothesis!: Hypothesis;

  /** The task whose run this is: its global id and `task` read it. */
  taskId!: string;
}

@ObjectType({ simpleResolvers: true, description: 'What recordAction stored.' })
export class RecordActionResult {
  @Field(() => ID)
  taskId!: string;

  @Field(() => Action, {
    description: 'The stored iteration (with its allocated number and the possibly cut results).',
  })
  action!: Action;

  @Field(() => Task, { description: 'The task after the write.' })
  task!: Task;
}

/** Why a task counts as stuck. */
export enum StuckReason {
  PROGRESS_STUCK = 'progress_stuck',
  REPEATED_FAILURE = 'repeated_failure',
}
registerEnumType(StuckReason, {
  name: 'StuckReason',
  description:
    'PROGRESS_STUCK: the latest iterations all report progress STUCK; REPEATED_FAILURE: they all repeat the same failing tool call.',
});

@ObjectType({
  simpleResolvers: true,
  description: 'A failing tool call (same tool, same arguments) repeated by consecutive latest iterations.',
})
export class RepeatedFailure {
  @Field()
  toolName!: string;

  @Field({ description: 'Its phase-1 line, name(args_summary) → outcome, as last seen.' })
  call!: string;

  @Field(() => Int, { description: 'Consecutive latest iterations with this call failing.' })
  iterations!: number;
}

@ObjectType({ simpleResolvers: true, description: 'A task whose latest iterations make no headway.' })
export class StuckTask {
  @Field(() => Task)
  task!: Task;

  @Field(() => [StuckReason])
  reasons!: StuckReason[];

  @Field(() => Int, { description: 'Consecutive latest iterations that are stuck by either rule.' })
  stuckIterations!: number;

  @Field(() => Int, { description: 'Consecutive latest iterations reporting progress STUCK.' })
  progressStuckIterations!: number;

  @Field(() => RepeatedFailure, {
    nullable: true,
    description: 'The longest-repeated failing call of the latest iteration, if any.',
  })
  repeatedFailure!: RepeatedFailure | null;

  @Field(() => Int)
  lastIteration!: number;

  @Field()
  lastActionAt!: Date;
}

/**
 * Maps a stored iteration of task `taskId` to the GraphQL shape, each field read through stored-values.ts and each
 * substitute reported as `actions.<iteration>.<field>` (tool calls as `actions.<iteration>.tool_calls.<index>.<field>`).
 */
export function toAction(stored: unknown, taskId: string): Action {
  const document = storedObject(stored) as Partial<Record<keyof ActionDocument, unknown>>;
  const read = new StoredReader(TASKS_COLLECTION, taskId);
  const iteration = read.field('iteration', 'actions.iteration', storedInt(document.iteration));
  const at = `actions.${iteration}`;
  const field = <T>(name: keyof Action, storedField: string, value: T) =>
    read.field(name, `${at}.${storedField}`, value);
  const hypothesis = field('hypothesis', 'hypothesis', storedObject(document.hypothesis));
  const readHypothesis = new StoredReader(TASKS_COLLECTION, taskId);
  const calls = field('toolCalls', 'tool_calls', storedObjectEntries<Record<string, unknown>>(document.tool_calls));
  return read.attach({
    taskId,
    iteration,
    timestamp: field('timestamp', 'timestamp', storedDate(document.timestamp)),
    mode: field('mode', 'mode', storedEnum(document.mode, ACTION_MODES, ActionMode.FAST)),
    thinking: field('thinking', 'thinking', storedText(document.thinking, '')),
    planning: field('planning', 'planning', storedText(document.planning, '')),
    reflection: field('reflection', 'reflection', storedText(document.reflection, '')),
    approach: field('approach', 'approach', storedText(document.approach, '')),
    toolCalls: calls.map(([index, call]) =>
      toToolCall(call, { taskId, iteration, index }, `${at}.tool_calls.${index}`),
    ),
    synthesis: field('synthesis', 'synthesis', storedText(document.synthesis, '')),
    progress: field('progress', 'progress', storedEnumOrNull(notAssessed(document.progress), PROGRESSES)),
    hypothesis: readHypothesis.attach({
      belief: readHypothesis.field('belief', `${at}.hypothesis.belief`, storedText(hypothesis.belief, '')),
      test: readHypothesis.field('test', `${at}.hypothesis.test`, storedText(hypothesis.test, '')),
    }),
  });
}

function toToolCall(
  call: Record<string, unknown>,
  place: Pick<ToolCall, 'taskId' | 'iteration' | 'index'>,
  at: string,
): ToolCall {
  const read = new StoredReader(TASKS_COLLECTION, place.taskId);
  const field = <T>(name: keyof ToolCall, storedField: string, value: T) =>
    read.field(name, `${at}.${storedField}`, value);
  return read.attach({
    ...place,
    name: field('name', 'name', storedText(call.name)),
    args: field('args', 'args', storedObject(call.args)),
    result: field('result', 'result', storedText(call.result, '')),
    resultTruncated: field('resultTruncated', 'result_truncated', storedBoolean(call.result_truncated, false)),
    outcome: field('outcome', 'outcome', storedEnum(call.outcome, TOOL_OUTCOMES, ToolOutcome.ERROR)),
    executionTimeMs: field('executionTimeMs', 'execution_time', storedFloatOrNull(call.execution_time)),
    insights: field('insights', 'insights', storedText(call.insights, '')),
    learning: field('learning', 'learning', storedText(call.learning, '')),
    relevance: field('relevance', 'relevance', storedEnumOrNull(notAssessed(call.relevance), RELEVANCES)),
  });
}

/** '' is how the seed stores "not assessed" (null here). */
function notAssessed(value: unknown): unknown {
  return value === '' ? null : value;
}

const ACTION_MODES = Object.values(ActionMode);
const TOOL_OUTCOMES = Object.values(ToolOutcome);
const PROGRESSES = Object.values(ActionProgress);
const RELEVANCES = Object.values(Relevance);
