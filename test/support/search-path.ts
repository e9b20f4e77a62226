/// <reference types="jest" />
/**
 * Whether the app's tests search vectors through the in-process index (VECTOR_SEARCH unset or `memory`). With
 * VECTOR_SEARCH=atlas the database searches the vectors and, by design, a process saves no snapshot under
 * DATA_DIR/search: the suites of those run on the memory path only, as do the suites that build the in-process index
 * themselves (HNSW recall, snapshots), which VECTOR_SEARCH does not change: CI's atlas run would repeat them verbatim.
 */
export const IN_PROCESS_INDEX = process.env.VECTOR_SEARCH !== 'atlas';

export const describeInProcessIndex = IN_PROCESS_INDEX ? describe : describe.skip;
export const itInProcessIndex = IN_PROCESS_INDEX ? it : it.skip;
