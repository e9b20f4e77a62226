import { Field, Float, ID, Int, ObjectType, registerEnumType } from 'type-graphql';

/** The kinds of memory `recall` composes, in the order its text presents them. */
export enum RecallPart {
  EXPERIENCES = 'EXPERIENCES',
  INSIGHTS = 'INSIGHTS',
  PLANS = 'PLANS',
  TOOL_WARNINGS = 'TOOL_WARNINGS',
  MESSAGES = 'MESSAGES',
}
registerEnumType(RecallPart, {
  name: 'RecallPart',
  description:
    'What recall may include: EXPERIENCES (outcomes and lessons), INSIGHTS, PLANS (that worked), TOOL_WARNINGS (tools that fail on similar tasks), MESSAGES (past conversation).',
});

export const RECALL_PARTS: readonly RecallPart[] = Object.values(RecallPart);

@ObjectType({ simpleResolvers: true, description: 'One memory recall chose, with why and what it cost.' })
export class RecallItem {
  @Field(() => RecallPart)
  kind!: RecallPart;

  @Field(() => ID, {
    description:
      'The memory\'s own id: experienceId, insight id, plan patternId, tool name, or "<sessionId>/<agentId>/<messageId>".',
  })
  id!: string;

  @Field(() => Float, { description: 'How relevant it was judged, 0–1; items compete for the budget by it.' })
  score!: number;

  @Field({ description: 'One line: why it was chosen.' })
  why!: string;

  @Field({ description: 'The Markdown it contributed to the text.' })
  text!: string;

  @Field(() => Int, { description: 'Tokens of `text` (cl100k_base).' })
  tokens!: number;
}

@ObjectType({ simpleResolvers: true, description: 'What an agent should know for a task, within a token budget.' })
export class RecallResult {
  @Field({ description: 'Prompt-ready Markdown, one section per kind; the same store gives the same text.' })
  text!: string;

  @Field(() => [RecallItem], { description: 'The chosen memories, in the order of the text.' })
  items!: RecallItem[];

  @Field(() => Int, { description: 'Tokens of `text` (cl100k_base); never more than `budget`.' })
  tokens!: number;

  @Field(() => Int)
  budget!: number;
}
