/**
 * The server runs in production mode unless told otherwise: graphql-js reads NODE_ENV once, when it is first loaded,
 * and outside production it checks every `instanceOf` for duplicate copies of itself (≈ 4% of a read's CPU). Apollo's
 * NODE_ENV-dependent defaults (introspection, landing page, stack traces) are all set explicitly in src/http/graphql-bridge.ts.
 * Imported first by main.ts, before anything loads graphql.
 */
/** NODE_ENV as the operator set it (undefined: unset), which decides INTROSPECTION's and PLAYGROUND's defaults. */
export const OPERATOR_NODE_ENV: string | undefined = process.env.NODE_ENV;
process.env.NODE_ENV ??= 'production';
