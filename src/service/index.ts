export { StartupError } from './startup-error.js';
export { startService, startupLine, type Service } from './start-service.js';
export { privateRedisIfNoneAnswers, type PrivateRedis } from './private-redis.js';
export { inRouteGroupOrder } from './route-group-order.js';
