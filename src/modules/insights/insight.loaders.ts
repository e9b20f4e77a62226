import type DataLoader from 'dataloader';
import { createLoader, type LoaderSettings } from '../shared/loaders';
import type { AgentInsightDocument } from './insight.document';
import type { AgentInsightRepository } from './insight.repository';

export interface InsightLoaders {
  /** The insights each insightId replaced (`supersededBy` it), the earliest ended first. */
  supersededBy: DataLoader<string, AgentInsightDocument[], string>;
}

/** Per-request loaders of insights (by id: `nodes.insightById`). */
export function createInsightLoaders(repository: AgentInsightRepository, settings: LoaderSettings): InsightLoaders {
  return {
    supersededBy: createLoader<string, AgentInsightDocument[], string>(settings, async (ids) => {
      const replaced = new Map<string, AgentInsightDocument[]>(ids.map((id) => [id, []]));
      for (const document of await repository.findSupersededBy(ids))
        replaced.get(document.supersededBy as string)?.push(document);
      return ids.map((id) => replaced.get(id)!);
    }),
  };
}
