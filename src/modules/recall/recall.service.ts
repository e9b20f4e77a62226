import type { ExperienceService } from '../experiences/experience.service';
import type { InsightService } from '../insights/insight.service';
import type { PlanService } from '../plans/plan.service';
import type { ToolService } from '../tools/tool.service';
import {
  experienceCollector,
  insightCollector,
  planCollector,
  toolWarningCollector,
  type PartCollector,
} from './recall.collectors';
import { composeRecall } from './recall.compose';
import type { RecallArgs } from './recall.input';
import { RecallPart, type RecallResult } from './recall.type';
import { checkRecallArgs } from './recall.validation';

/** Candidates offered per part: about one per 80 tokens of budget (a short line's cost), 5 to 100. */
export function candidatesPerPart(budget: number): number {
  return Math.min(100, Math.max(5, Math.ceil(budget / 80)));
}

/** The services recall reads through (each part's own: validation, scopes and current-only rules stay theirs). */
export interface RecallSources {
  experiences: ExperienceService;
  insights: InsightService;
  plans: PlanService;
  tools: ToolService;
}

/**
 * recall: what an agent should know for a task, in one call. Each part is a collector over its own feature's service
 * (recall.collectors.ts); the parts run concurrently and their candidates compete for the token budget
 * (recall.compose.ts).
 */
export class RecallService {
  private readonly collectors: Record<RecallPart, PartCollector | null>;

  constructor(sources: RecallSources, messages: PartCollector | null = null) {
    this.collectors = {
      [RecallPart.EXPERIENCES]: experienceCollector(sources.experiences),
      [RecallPart.INSIGHTS]: insightCollector(sources.insights),
      [RecallPart.PLANS]: planCollector(sources.plans),
      [RecallPart.TOOL_WARNINGS]: toolWarningCollector(sources.tools),
      [RecallPart.MESSAGES]: messages,
    };
  }

  async recall(args: RecallArgs): Promise<RecallResult> {
    const { query, scope, budget, parts } = checkRecallArgs(args);
    const request = { query, scope, limit: candidatesPerPart(budget) };
    const offered = await Promise.all(
      parts.map((part) => {
        const collect = this.collectors[part];
        return collect ? collect(request) : [];
      }),
    );
    return composeRecall(offered.flat(), budget);
  }
}
