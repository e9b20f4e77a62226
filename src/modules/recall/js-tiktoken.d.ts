/** js-tiktoken's ranks are reached through package exports, which the node10 module resolution does not read. */
declare module 'js-tiktoken/ranks/cl100k_base' {
  import type { TiktokenBPE } from 'js-tiktoken/lite';
  const ranks: TiktokenBPE;
  export default ranks;
}
