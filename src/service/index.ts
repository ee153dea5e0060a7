export { StartupError } from './startup-error.js';
export { startService, startupLine, type Service } from './start-service.js';
export { inRouteGroupOrder } from './route-group-order.js';
