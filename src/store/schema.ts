/** Table shapes shared by SQLite and PostgreSQL. Times are epoch milliseconds. */
export interface MetaTable {
  key: string;
  value: string;
}

export interface UsersTable {
  name: string;
  /** Empty string for operators (not bound to a tenant). */
  tenant: string;
  /** Empty string for operators. */
  project: string;
  scope: string;
  password_hash: string;
  operator: number;
  created: number;
}

export interface TenantsTable {
  name: string;
  created: number;
  updated: number;
}

export interface ProjectsTable {
  tenant: string;
  name: string;
  keep_until: string | null;
  expires: number | null;
  created: number;
  updated: number;
}

export interface RepoFilesTable {
  path: string;
  size: number;
  sha256: string;
  blob_key: string;
  created: number;
  updated: number;
}

export interface TicketsTable {
  id: string;
  tenant: string;
  project: string;
  user_name: string;
  /** Output kind: `pdf`, `pptx` or `aggregate`. */
  target: string;
  /** `<step>.<outcome>` of the last finished step; null before the first. */
  status: string | null;
  /** Step that is due; null once complete. */
  next: string | null;
  complete: number;
  run_after: number;
  priority: number;
  lease_owner: string | null;
  lease_until: number | null;
  /** Bumped on every claim; a completion must name the attempt it belongs to. */
  attempt: number;
  redeliveries: number;
  /** JSON array of strings. */
  messages: string;
  error_code: string | null;
  error_message: string | null;
  /** JSON of the request parameters (see tickets/params.ts). */
  params: string;
  input_type: string;
  input_inline: Buffer | null;
  input_key: string | null;
  input_size: number;
  foreign_key: string | null;
  processing_msecs: number;
  processing_pages: number;
  group_id: string | null;
  part_index: number | null;
  output_name: string | null;
  shipped: number;
  created: number;
  updated: number;
  completed: number | null;
  keep_input_until: number | null;
}

export interface ArtifactsTable {
  ticket: string;
  /** File name as served, e.g. `<ticket>.pdf`, `<ticket>.typst.log`. */
  name: string;
  /** `output`, `log` or `content`. */
  kind: string;
  blob_key: string;
  size: number;
  content_type: string;
  keep_until: number | null;
  keep_rule: string | null;
  created: number;
}

export interface Database {
  meta: MetaTable;
  users: UsersTable;
  tenants: TenantsTable;
  projects: ProjectsTable;
  repo_files: RepoFilesTable;
  tickets: TicketsTable;
  artifacts: ArtifactsTable;
}
