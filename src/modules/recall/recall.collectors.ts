import { keywordTerms } from '../../search/tokenize';
import { SearchMode, type SearchExperiencesArgs } from '../experiences/experience.input';
import type { ExperienceService } from '../experiences/experience.service';
import type { Experience } from '../experiences/experience.type';
import type { InsightService } from '../insights/insight.service';
import type { MessageSearchService } from '../messages/message.service';
import { AgentType, type AgentInsight } from '../insights/insight.type';
import type { AgentInsightsArgs } from '../insights/insight.input';
import type { PlanService } from '../plans/plan.service';
import type { SuccessfulPlansArgs } from '../plans/plan.input';
import type { ToolService } from '../tools/tool.service';
import { bullet, head, inline, type RecallCandidate } from './recall.compose';
import { RecallPart } from './recall.type';

/** What every part collector is asked: the checked query and scope, and how many candidates to offer at most. */
export interface RecallRequest {
  query: string;
  scope: { userId?: string; agentId?: string; sessionId?: string };
  /** At most this many candidates (1–100): more than the budget could take of one part. */
  limit: number;
}

/** One part of recall: the candidates it offers for a request, any order (recall ranks and cuts them). */
export type PartCollector = (request: RecallRequest) => Promise<RecallCandidate[]>;

const score2 = (value: number) => value.toFixed(2);
const percent = (rate: number) => `${Math.round(rate * 100)}%`;

/** The lessons an experience recorded (`key_decisions_made`: a list of strings, or any structured value). */
function lessonsOf(experience: Experience): string {
  const decisions = experience.keyDecisionsMade;
  if (decisions == null) return '';
  if (Array.isArray(decisions)) return decisions.filter((item) => typeof item === 'string').join('; ');
  if (typeof decisions === 'string') return decisions;
  return JSON.stringify(decisions) ?? '';
}

/** Experiences scoring less (hybrid: half vector, half keyword) are too far from the query to be worth tokens. */
export const MIN_EXPERIENCE_SCORE = 0.2;

/** The stored fields an experience's line reads (the search reads those alone, as for a GraphQL selection). */
const RECALLED_EXPERIENCE_FIELDS = [
  'experience_id',
  'primary_goal_description',
  'sub_task_description',
  'final_outcome',
  'output_summary',
  'key_decisions_made',
];

/**
 * EXPERIENCES: current experiences (the search's default: superseded and retired ones left out) by hybrid search of
 * the query over their four texts, in scope (user; agent as the initiating agent); each line gives the outcome, what
 * was tried and what came of it, and its lessons.
 */
export function experienceCollector(experiences: ExperienceService): PartCollector {
  return async ({ query, scope, limit }) => {
    const args: SearchExperiencesArgs = {
      query,
      fields: null,
      filter: { userId: scope.userId ?? null, initiatingAgentId: scope.agentId ?? null },
      limit,
      minScore: MIN_EXPERIENCE_SCORE,
      mode: SearchMode.HYBRID,
      includeSuperseded: false,
      asOf: null,
    };
    const hits = await experiences.search(args, RECALLED_EXPERIENCE_FIELDS);
    return hits.map(({ experience, score, vectorScore, keywordScore, matchedField }) => {
      const lessons = inline(lessonsOf(experience));
      const outcome = inline(experience.outputSummary);
      return {
        kind: RecallPart.EXPERIENCES,
        id: experience.experienceId,
        score,
        why: `Matched its ${matchedField} (vector ${score2(vectorScore ?? 0)}, keyword ${score2(keywordScore ?? 0)}).`,
        text: bullet([
          `**${experience.finalOutcome.toUpperCase()}**`,
          `${inline(experience.primaryGoalDescription)} — ${inline(experience.subTaskDescription)}.`,
          outcome && `Outcome: ${outcome}.`,
          lessons && `Lessons: ${lessons}.`,
        ]),
      };
    });
  };
}

/** Insights are matched against the query's terms in its first this many characters (a query may be megabytes). */
const INSIGHT_QUERY_CHARS = 10_000;
/** Insights of every agent type are read, at most this many of each (the most confident first). */
const INSIGHTS_PER_AGENT_TYPE = 100;
/** An insight's score: this share from its words' overlap with the query, the rest from its confidence. */
const INSIGHT_RELEVANCE_WEIGHT = 0.7;

/**
 * INSIGHTS: current insights in scope (user, agent), the most confident of each agent type, scored by the share of the
 * query's terms (stemmed, stop words aside) they contain and by their confidence. Without a scope, an insight sharing
 * no term with the query is left out; with one, the scope's insights all count (they are about this user or agent).
 */
export function insightCollector(insights: InsightService): PartCollector {
  return async ({ query, scope, limit }) => {
    const queryTerms = new Set(keywordTerms(query.slice(0, INSIGHT_QUERY_CHARS)));
    const lists = await Promise.all(
      Object.values(AgentType).map((agentType) => {
        const args: AgentInsightsArgs = {
          agentType,
          insightType: null,
          userId: scope.userId ?? null,
          agentId: scope.agentId ?? null,
          limit: INSIGHTS_PER_AGENT_TYPE,
          minConfidence: 0,
          includeSuperseded: false,
          asOf: null,
        };
        return insights.list(args);
      }),
    );
    const scoped = scope.userId !== undefined || scope.agentId !== undefined;
    const candidates = lists
      .flatMap((list) => list.insights)
      .map((insight) => ({ insight, shared: sharedTerms(queryTerms, insight) }))
      .filter(({ shared }) => scoped || shared > 0)
      .map(({ insight, shared }) => {
        const relevance = queryTerms.size ? shared / queryTerms.size : 0;
        return {
          kind: RecallPart.INSIGHTS,
          id: insight.id,
          score: INSIGHT_RELEVANCE_WEIGHT * relevance + (1 - INSIGHT_RELEVANCE_WEIGHT) * insight.confidence,
          why:
            `Shares ${shared} of the query's ${queryTerms.size} terms; confidence ${score2(insight.confidence)}` +
            (scoped ? `; in scope (${insightScope(insight)}).` : '.'),
          text: bullet([
            inline(insight.insight),
            `(${insight.agentType.toLowerCase()} ${insight.type.toLowerCase()}, confidence ${score2(insight.confidence)})`,
          ]),
        };
      });
    return candidates.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1)).slice(0, limit);
  };
}

function sharedTerms(queryTerms: ReadonlySet<string>, insight: AgentInsight): number {
  let shared = 0;
  for (const term of new Set(keywordTerms(insight.insight))) if (queryTerms.has(term)) shared++;
  return shared;
}

function insightScope(insight: AgentInsight): string {
  const scope = [insight.userId !== null && 'user', insight.agentId !== null && 'agent'].filter(Boolean);
  return scope.length ? `its ${scope.join(' and ')}` : 'general';
}

/**
 * Plans and similar tasks match the query as a goal by its first this many characters: a goal is a sentence or two,
 * and their goal-template analysis of a megabyte-long query took seconds.
 */
export const GOAL_CHARS = 2000;

/** Plans qualify with at least this success rate (successfulPlans' default). */
const PLAN_MIN_SUCCESS_RATE = 0.8;

/** PLANS: successfulPlans for the query as the goal (of the scope's user: with that user's figures). */
export function planCollector(plans: PlanService): PartCollector {
  return async ({ query, scope, limit }) => {
    const args: SuccessfulPlansArgs = {
      goal: head(query, GOAL_CHARS),
      limit,
      minSuccessRate: PLAN_MIN_SUCCESS_RATE,
      userId: scope.userId ?? null,
    };
    const { plans: found } = await plans.successful(args);
    return found.map((plan) => {
      const steps = [...plan.steps].sort((a, b) => a.order - b.order).map((step) => inline(step.action, 100));
      const issues = inline(plan.commonIssues.join('; '));
      return {
        kind: RecallPart.PLANS,
        id: plan.planId,
        score: plan.score,
        why: `Goal match ${score2(plan.scores.match)}; succeeded ${percent(plan.successRate)} of ${plan.usageCount} runs.`,
        text: bullet([
          // A template's `_*_` would read as emphasis in Markdown: it is code.
          `\`${inline(plan.goalPattern, 200)}\`:`,
          inline(steps.join(' → ')),
          `(${percent(plan.successRate)} success over ${plan.usageCount} runs)`,
          issues && `Issues: ${issues}.`,
        ]),
      };
    });
  };
}

/** Tool warnings come from the tool calls of this many past tasks most similar to the query… */
export const TOOL_WARNING_TASKS = 20;
/** …at least this similar (similarTasks' score)… */
export const TOOL_WARNING_MIN_SIMILARITY = 0.3;
/** …for a tool that failed at least this many times there… */
export const TOOL_WARNING_MIN_FAILURES = 2;
/** …and succeeded less often than this. */
export const TOOL_WARNING_BELOW_SUCCESS_RATE = 0.7;

/**
 * TOOL_WARNINGS: the tools called in the past tasks most like the query (of the scope's user) that failed there
 * often (toolPerformance(similarTo) for each), with their most common error; the lower their success rate and the
 * more failures seen, the higher they score.
 */
export function toolWarningCollector(tools: ToolService): PartCollector {
  return async ({ query, scope, limit }) => {
    const figures = await tools.performanceOnSimilar({
      text: head(query, GOAL_CHARS),
      k: TOOL_WARNING_TASKS,
      userId: scope.userId,
      minSimilarity: TOOL_WARNING_MIN_SIMILARITY,
    });
    return figures
      .filter(
        (tool) => tool.failureCount >= TOOL_WARNING_MIN_FAILURES && tool.successRate < TOOL_WARNING_BELOW_SUCCESS_RATE,
      )
      .map((tool) => {
        const failures = tool.failureCount;
        const error = tool.commonErrors[0];
        return {
          kind: RecallPart.TOOL_WARNINGS,
          id: tool.toolName,
          score: (1 - tool.successRate) * (failures / (failures + 2)),
          why: `Failed ${failures} of ${tool.totalExecutions} calls in the past tasks most similar to the query.`,
          text: bullet([
            `\`${inline(tool.toolName, 200)}\` succeeded ${tool.successCount} of ${tool.totalExecutions} times`,
            `(${percent(tool.successRate)}) on similar tasks.`,
            error && `Most common error (${error.frequency}×): ${inline(error.error, 200)}.`,
          ]),
        };
      })
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
      .slice(0, limit);
  };
}

/** Messages scoring less (hybrid: half vector, half keyword) are too far from the query to be worth tokens. */
export const MIN_MESSAGE_SCORE = 0.2;

/**
 * MESSAGES: the past messages whose text best matches the query (searchMessages, hybrid), in scope (the session's
 * user, the agent, the session); a redacted message is never recalled. A line gives the role, the day and session,
 * and the text.
 */
export function messageCollector(messages: MessageSearchService): PartCollector {
  return async ({ query, scope, limit }) => {
    const hits = await messages.search({
      query,
      filter: { userId: scope.userId ?? null, agentId: scope.agentId ?? null, sessionId: scope.sessionId ?? null },
      limit,
    });
    return hits
      .filter((hit) => !hit.message.redacted && hit.score >= MIN_MESSAGE_SCORE)
      .map((hit) => ({
        kind: RecallPart.MESSAGES,
        id: hit.id,
        score: hit.score,
        why: `Matched the message's text (vector ${score2(hit.vectorScore ?? 0)}, keyword ${score2(hit.keywordScore ?? 0)}).`,
        text: bullet([
          `**${hit.message.role}**`,
          `(${hit.message.createdAt.toISOString().slice(0, 10)}, session ${inline(hit.sessionId, 60)}):`,
          inline(hit.message.text),
        ]),
      }));
  };
}
