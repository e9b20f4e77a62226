import type { Db } from 'mongodb';
import type { Config } from '../config';
import { ensureExperienceIndexes } from '../modules/experiences/experience.repository';
import { ensureSessionIndexes } from '../modules/sessions/session.repository';
import { ensureTaskIndexes } from '../modules/tasks/task.repository';
import { ensurePlanIndexes } from '../modules/plans/plan.repository';
import { ensureToolIndexes } from '../modules/tools/tool.repository';
import { ensureRunIndexes } from '../modules/runs/run.repository';
import { ensureInsightIndexes } from '../modules/insights/insight.repository';

/** Creates every feature's indexes (idempotent); run at startup. Each feature declares its own and is listed here. */
export async function ensureIndexes(db: Db, config: Config): Promise<void> {
  await Promise.all([
    ensureExperienceIndexes(db),
    ensureSessionIndexes(db, config),
    ensureTaskIndexes(db),
    ensurePlanIndexes(db),
    ensureToolIndexes(db),
    ensureRunIndexes(db),
    ensureInsightIndexes(db),
  ]);
}
