export {
  listTenants,
  getTenant,
  createTenant,
  deleteTenant,
  listProjects,
  getProject,
  createProject,
  deleteProject,
  assertProjectExists,
  keepUntilValues,
  type KeepUntil,
  type TenantView,
  type ProjectView,
} from './service.js';
export { nameFilter, assertName } from './names.js';
