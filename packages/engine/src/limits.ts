/**
 * Bytes of documents per reply batch, for query cursors and change streams alike: well under the 16 MiB a reply
 * may carry.
 */
export const BATCH_BYTES = 8 * 1024 * 1024;
