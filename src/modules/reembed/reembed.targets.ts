import { registerEnumType } from 'type-graphql';
import { EXPERIENCES_REEMBED_TARGET } from '../experiences/experience.spaces';
import { TASKS_REEMBED_TARGET } from '../tasks/task.spaces';
import { PLAN_PATTERNS_REEMBED_TARGET } from '../plans/plan.spaces';
import type { ReembedTarget } from '../shared/reembed-target';

/** The collections `reembed` serves. A feature that stores vectors adds its value here and its target below. */
export enum ReembedCollection {
  EXPERIENCES = 'EXPERIENCES',
  TASKS = 'TASKS',
  PLAN_PATTERNS = 'PLAN_PATTERNS',
}
registerEnumType(ReembedCollection, {
  name: 'ReembedCollection',
  description: 'A collection whose stored vectors `reembed` can rewrite with the current embedder.',
});

export const REEMBED_TARGETS: Record<ReembedCollection, ReembedTarget> = {
  [ReembedCollection.EXPERIENCES]: EXPERIENCES_REEMBED_TARGET,
  [ReembedCollection.TASKS]: TASKS_REEMBED_TARGET,
  [ReembedCollection.PLAN_PATTERNS]: PLAN_PATTERNS_REEMBED_TARGET,
};
