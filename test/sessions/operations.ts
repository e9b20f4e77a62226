import { operationsFrom } from '../helpers/operations';

/** Operations of test/operations/sessions.graphql. */
export const op = operationsFrom('sessions.graphql');
