import { operationsFrom } from '../helpers/operations';

/** Operations of test/operations/history.graphql. */
export const op = operationsFrom('history.graphql');
