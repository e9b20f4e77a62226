import { dedupeKey } from './experience.dedupe';
import type { Experience } from './experience.type';

/** A memory's dedupe identity: its stored `dedupe_key`, else (older documents lack one) recomputed from its fields. */
export function memoryIdentity(experience: Experience): string {
  const stored = experience.stored?.dedupeKey;
  if (typeof stored === 'string') return stored;
  return dedupeKey({
    initiating_agent_id: experience.initiatingAgentId,
    user_id: (experience as Experience & { userId?: string | null }).userId ?? null,
    final_outcome: experience.finalOutcome,
    primary_goal_description: experience.primaryGoalDescription,
    sub_task_description: experience.subTaskDescription,
  });
}

/**
 * The first `limit` hits (best first) with one hit per memory: a hit whose experience is the same memory as a better
 * one (copies stored with `dedupe: false`, by a concurrent writer of another process, or before deduplication
 * existed) is left out, as are hits of the memories in `exclude`.
 */
export function collapseSameMemory<T extends { experience: Experience }>(
  hits: readonly T[],
  limit: number,
  exclude: readonly string[] = [],
): T[] {
  const seen = new Set(exclude);
  const page: T[] = [];
  for (const hit of hits) {
    if (page.length === limit) break;
    const identity = memoryIdentity(hit.experience);
    if (seen.has(identity)) continue;
    seen.add(identity);
    page.push(hit);
  }
  return page;
}
