import { ArgsType, Field, Float, InputType, Int } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { TaskStatus } from '../tasks/task.type';
import { ActionMode, ActionProgress, Relevance, ToolOutcome } from './run.type';

@InputType({
  description:
    'One tool call of an iteration. The compression fields (insights, learning, relevance) are phase 2: empty by default.',
})
export class ToolCallInput {
  @Field({ description: 'The tool as registered; tool performance counts the call under this name.' })
  name!: string;

  @Field(() => GraphQLJSONObject, {
    nullable: true,
    description: 'The arguments as passed (default {}); keys must not start with $.',
  })
  args?: Record<string, unknown> | null;

  @Field({
    defaultValue: '',
    description: 'The tool response; cut to 1,000 characters on write (resultTruncated says so).',
  })
  result!: string;

  @Field(() => ToolOutcome)
  outcome!: ToolOutcome;

  @Field(() => Float, {
    nullable: true,
    description: 'Milliseconds (≥ 0); counts in the tool’s average duration when given.',
  })
  executionTimeMs?: number | null;

  @Field({ defaultValue: '' })
  insights!: string;

  @Field({ defaultValue: '' })
  learning!: string;

  @Field(() => Relevance, { nullable: true })
  relevance?: Relevance | null;
}

@InputType()
export class HypothesisInput {
  @Field({ defaultValue: '' })
  belief!: string;

  @Field({ defaultValue: '' })
  test!: string;
}

@InputType({
  description: "One iteration of an agent's run (seed 004 action). FAST mode leaves planning and reflection empty.",
})
export class RecordActionInput {
  @Field(() => Int, {
    nullable: true,
    description:
      'The iteration number: it must be the next one (CONFLICT when taken). Absent: the next one is allocated atomically.',
  })
  iteration?: number | null;

  @Field(() => Date, { nullable: true, description: 'Default: now.' })
  timestamp?: Date | null;

  @Field(() => ActionMode)
  mode!: ActionMode;

  @Field({ defaultValue: '' })
  thinking!: string;

  @Field({ defaultValue: '', description: 'DEEP mode only.' })
  planning!: string;

  @Field({ defaultValue: '', description: 'DEEP mode only.' })
  reflection!: string;

  @Field({ defaultValue: '' })
  approach!: string;

  @Field(() => [ToolCallInput], { defaultValue: [] })
  toolCalls!: ToolCallInput[];

  @Field({ defaultValue: '' })
  synthesis!: string;

  @Field(() => ActionProgress, { nullable: true })
  progress?: ActionProgress | null;

  @Field(() => HypothesisInput, { nullable: true })
  hypothesis?: HypothesisInput | null;
}

@ArgsType()
export class ActionsArgs {
  @Field(() => Int, { defaultValue: 0, description: 'The first iteration to return.' })
  fromIteration!: number;

  @Field(() => Int, { defaultValue: 100, description: 'At most this many iterations (1–1000).' })
  limit!: number;
}

@ArgsType()
export class AttemptsArgs {
  @Field(() => Relevance, {
    defaultValue: Relevance.MEDIUM,
    description: 'Calls with insights below this relevance are left out.',
  })
  minRelevance!: Relevance;
}

@ArgsType()
export class StuckTasksArgs {
  @Field(() => Int, { defaultValue: 3, description: 'How many latest iterations must be stuck (≥ 1).' })
  minIterations!: number;

  @Field(() => TaskStatus, { nullable: true })
  status?: TaskStatus | null;

  @Field(() => Int, { defaultValue: 50, description: 'At most this many tasks (1–500), most stuck first.' })
  limit!: number;
}
