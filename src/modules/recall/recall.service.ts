import type { ExperienceService } from '../experiences/experience.service';
import type { InsightService } from '../insights/insight.service';
import type { MessageSearchService } from '../messages/message.service';
import type { PlanService } from '../plans/plan.service';
import type { ToolService } from '../tools/tool.service';
import {
  experienceCollector,
  insightCollector,
  messageCollector,
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
  messages: MessageSearchService;
}

/**
 * recall: what an agent should know for a task, in one call. Each part is a collector over its own feature's service
 * (recall.collectors.ts); the parts run concurrently and their candidates compete for the token budget
 * (recall.compose.ts).
 */
export class RecallService {
  private readonly collectors: Record<RecallPart, PartCollector>;

  /**
   * `messageIndex`: whether the message index is on (MESSAGE_INDEX). Off, a recall of all parts (include omitted)
   * leaves messages out, while one asking for MESSAGES answers the search's SERVICE_UNAVAILABLE.
   */
  constructor(
    sources: RecallSources,
    private readonly messageIndex = true,
  ) {
    this.collectors = {
      [RecallPart.EXPERIENCES]: experienceCollector(sources.experiences),
      [RecallPart.INSIGHTS]: insightCollector(sources.insights),
      [RecallPart.PLANS]: planCollector(sources.plans),
      [RecallPart.TOOL_WARNINGS]: toolWarningCollector(sources.tools),
      [RecallPart.MESSAGES]: messageCollector(sources.messages),
    };
  }

  async recall(args: RecallArgs): Promise<RecallResult> {
    const { query, scope, budget, parts: asked } = checkRecallArgs(args);
    const parts = args.include || this.messageIndex ? asked : asked.filter((part) => part !== RecallPart.MESSAGES);
    const request = { query, scope, limit: candidatesPerPart(budget) };
    const offered = await Promise.all(parts.map((part) => this.collectors[part](request)));
    return composeRecall(offered.flat(), budget);
  }
}
