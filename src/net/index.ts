export { AddressPolicy, AddressNotAllowedError, isSpecialAddress } from './address-policy.js';
export { guardedAgent, type GuardedAgentOptions } from './guarded-agent.js';
