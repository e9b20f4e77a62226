// mingo declares its subpath exports for node16/bundler resolution only; this project resolves as node10,
// so these point the runtime subpaths at the declarations mingo ships.
declare module 'mingo/aggregator' {
  export * from 'mingo/types/aggregator';
}
declare module 'mingo/core' {
  export * from 'mingo/types/core';
}
declare module 'mingo/query' {
  export * from 'mingo/types/query';
}
declare module 'mingo/operators/accumulator' {
  export * from 'mingo/types/operators/accumulator';
}
declare module 'mingo/operators/expression' {
  export * from 'mingo/types/operators/expression';
}
declare module 'mingo/operators/pipeline' {
  export * from 'mingo/types/operators/pipeline';
}
declare module 'mingo/operators/query' {
  export * from 'mingo/types/operators/query';
}
declare module 'mingo/operators/window' {
  export * from 'mingo/types/operators/window';
}
