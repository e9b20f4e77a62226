import { operationsFrom } from '../helpers/operations';

/** Operations of test/operations/experiences.graphql. */
export const op = operationsFrom('experiences.graphql');
