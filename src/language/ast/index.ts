export * from './nodes.js';
export { stripPositions } from './strip-positions.js';
