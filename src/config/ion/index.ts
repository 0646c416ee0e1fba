export { parseIon, parseIonStruct, ConfigFileError, type ConfigProblem } from './parse.js';
export { stepNames, configKindOf, profilePattern, type StepConfig, type StepName } from './steps.js';
export { readConfigFile, normalizeConfig, checkRepositoryFile, invalidConfig } from './config-file.js';
export { mergeConfig, toIonText } from './merge.js';
