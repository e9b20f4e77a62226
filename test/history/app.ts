import { PLAN_SPACES } from '../../src/modules/plans/plan.spaces';
import { TASK_SPACES } from '../../src/modules/tasks/task.spaces';
import { createTestApp, type TestApp, type TestAppOptions } from '../helpers/app';

/** The test app with the agent-history search spaces defined (a no-op where the app defines them already). */
export async function createHistoryApp(options: TestAppOptions = {}): Promise<TestApp> {
  const app = await createTestApp(options);
  app.deps.search.defineSpace(...TASK_SPACES, ...PLAN_SPACES);
  return app;
}
