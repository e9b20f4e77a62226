export { HindsightClient, HindsightError, type HindsightConnection, type HindsightErrorDetail } from './client.js';
export { HindsightMemoryStore, type HindsightMemoryStoreConfig, type MemoryKind } from './memory-store.js';
export { HindsightSnapshotStorage, type HindsightSnapshotStorageConfig } from './snapshot-storage.js';
export type { RecallPart } from './recall.pending.js';
