/** The longest id a caller may choose (a session, task, experience, agent or workflow id): ids are indexed keys. */
export const MAX_ID_LENGTH = 200;
