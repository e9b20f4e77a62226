import type { SpaceDefinition } from '../search/space';
import { EXPERIENCE_SPACES } from './experiences/experience.spaces';
import { PLAN_SPACES } from './plans/plan.spaces';
import { TASK_SPACES } from './tasks/task.spaces';

/** Every search space of the API (one per indexed vector field); defined once when the app's deps are built. */
export const SEARCH_SPACES: readonly SpaceDefinition[] = [...Object.values(EXPERIENCE_SPACES), ...TASK_SPACES, ...PLAN_SPACES];
