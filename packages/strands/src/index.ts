export { HindsightClient, HindsightError, type HindsightConnection, type HindsightErrorDetail } from './client.js';
export { HindsightMemoryStore, type HindsightMemoryStoreConfig, type MemoryKind } from './memory-store.js';
export { HindsightSnapshotStorage, type HindsightSnapshotStorageConfig } from './snapshot-storage.js';
export type { AgentType, ExperienceOutcome, InsightType, RecallPart } from './generated/graphql.js';
