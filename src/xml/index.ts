export { assertJson, assertSafeXml, jsonDepthOver, MAX_INPUT_DEPTH } from './input-check.js';
