export { compileProgram, type ProgramOptions } from './compile-program.js';
