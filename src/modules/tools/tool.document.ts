import type { ObjectId } from 'mongodb';
import type { CollectionIndexes } from '../../db/indexes';
import type { ToolPerformanceFigures } from './tool.aggregation';

/** The collection of seed 002's ToolPerformance. */
export const TOOL_PERFORMANCE_COLLECTION = 'tool_performance';

/**
 * A document of `tool_performance`: the seed's fields (toolName, totalExecutions, successCount, failureCount,
 * avgDuration, commonErrors, optimalContext, lastUpdated) plus the sums the averages are computed from and the
 * per-context counters.
 */
export interface ToolPerformanceDocument extends ToolPerformanceFigures {
  _id?: ObjectId;
  /** The ids of the keyed writes counted here, latest last (see `markApplied`): a retried one is not counted again. */
  appliedWrites?: string[];
}

/** Seed 002: `toolName` (unique: one aggregate per tool) and `lastUpdated`. */
export const TOOL_INDEXES: CollectionIndexes = {
  collection: TOOL_PERFORMANCE_COLLECTION,
  indexes: [
    { key: { toolName: 1 }, name: 'toolName_unique', unique: true },
    { key: { lastUpdated: -1 }, name: 'lastUpdated' },
  ],
};
