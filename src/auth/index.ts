export { TokenService } from './tokens.js';
export { hashPassword, verifyPassword } from './passwords.js';
export { authenticate, addUser, listUsers, removeUser, setPassword, type UserView, type Grant } from './users.js';
export { bootstrapOperator, createOperator, resetOperatorPassword } from './operators.js';
export { userStamp, type TokenIdentity } from './identity.js';
export { type Principal, type Scope, scopes, SYSTEM_TENANT, requireOperator, requireProject, requireProjectAdmin, unauthorized } from './principal.js';
export { FailureLimit, type TokenAttempt } from './failure-limit.js';
