import { Field, ObjectType } from 'type-graphql';
import { Experience } from '../experiences/experience.type';
import { AgentInsight } from '../insights/insight.type';
import { MemoryKind } from '../shared/validity.type';

@ObjectType({ simpleResolvers: true, description: 'A memory just superseded or retired, as it is now.' })
export class EndedMemory {
  @Field(() => MemoryKind)
  kind!: MemoryKind;

  @Field(() => Experience, { nullable: true, description: 'Set when kind is EXPERIENCE.' })
  experience!: Experience | null;

  @Field(() => AgentInsight, { nullable: true, description: 'Set when kind is INSIGHT.' })
  insight!: AgentInsight | null;
}
