/**
 * The server runs in production mode unless told otherwise: graphql-js reads NODE_ENV once, when it is first loaded,
 * and outside production it checks every `instanceOf` for duplicate copies of itself (≈ 4% of a read's CPU). Apollo's
 * NODE_ENV-dependent defaults (introspection, landing page, stack traces) are all set explicitly in src/http/graphql-bridge.ts.
 * Imported first by main.ts, before anything loads graphql.
 */
process.env.NODE_ENV ??= 'production';
