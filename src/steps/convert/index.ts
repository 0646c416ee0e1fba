export { convertStep } from './step.js';
export * from './options.js';
