export { ClientError } from './client-error.js';
