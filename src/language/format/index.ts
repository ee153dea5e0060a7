export { format } from './format.js';
export { formatFloat, formatText } from './format-literal.js';
