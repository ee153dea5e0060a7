export { ClientError } from './client-error.js';
export { DEFAULT_RETRY_AFTER_SECONDS, DependencyUnavailableError } from './dependency-unavailable.js';
export { LISTED_PROBLEMS_MAX, QUOTED_NAME_MAX, listNames, listProblems } from './problem-list.js';
export { describeSchemaProblem, jsonTypeName, type BodyShape } from './schema-problem.js';
