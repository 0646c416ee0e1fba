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
  /** Random id of this row (migration 006-token-identity): tokens carry it, so a tenant created again is another one. */
  uid: string;
  created: number;
  updated: number;
}

export interface ProjectsTable {
  tenant: string;
  name: string;
  /** Random id of this row (migration 006-token-identity), as for tenants. */
  uid: string;
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
  /** Fanout parts: the aggregate ticket waiting for them. */
  aggregate_id: string | null;
  /** The project's parallel render limit when the ticket was accepted. */
  max_parallel: number | null;
}

export interface QuotaUsageTable {
  tenant: string;
  project: string;
  /** `YYYY-MM` (UTC). */
  period: string;
  tickets: number;
}

/**
 * Ticket columns of the webhook steps (migration 003). Kept apart from TicketsTable so code that
 * builds whole ticket rows need not name them; they are read and written by store/webhooks.ts.
 */
export interface TicketWebhookColumns {
  /** JSON: URLs delivered per webhook step and upload export parameters (see webhooks/state.ts). */
  webhook_state: string | null;
}

export interface ArtifactsTable {
  ticket: string;
  /** File name as served, e.g. `<ticket>.pdf`, `<ticket>.typst.log`. */
  name: string;
  /** `output`, `log` or `content`. */
  kind: string;
  /** Where the bytes are in the blob store; for a row with `data`, the key they would have (nothing is stored there). */
  blob_key: string;
  size: number;
  content_type: string;
  keep_until: number | null;
  keep_rule: string | null;
  created: number;
  /** The bytes themselves, for a file up to PRESSROOM_INLINE_FILE_MAX_BYTES; null when they are in the blob store. */
  data: Buffer | null;
}

/** Usage counters, one row per tenant, project and UTC interval (`unit` hour, day, month or year). */
export interface StatsTable {
  tenant: string;
  project: string;
  unit: string;
  /** Interval start, epoch ms (UTC). */
  start: number;
  tickets: number;
  errors: number;
  processing_msec: number;
  processing_pages: number;
  redeliveries: number;
  total_msec: number;
  download_requests: number;
  download_bytes: number;
  download_msec: number;
  upload_requests: number;
  upload_bytes: number;
  upload_msec: number;
  cache_hits: number;
}

/** Failed token requests of one subject (`user:<name>` or `address:<ip>`) in its current window. */
export interface AuthFailuresTable {
  subject: string;
  failures: number;
  /** End of the window, epoch ms; a failure after it starts a new window. */
  expires: number;
}

/** One attempt of one step of a ticket (migration 009): the ticket's timeline. */
export interface StepEventsTable {
  ticket: string;
  /** The ticket's attempt counter when the step was claimed (unique per ticket). */
  attempt: number;
  step: string;
  started: number;
  /** Null while running, or when the attempt never finished (its lease ran out). */
  ended: number | null;
  /** `succeeded` or `failed` once ended. */
  outcome: string | null;
  error_code: string | null;
}

/** An Idempotency-Key of a render request (migration 010), kept 24 h from its first use. */
export interface IdempotencyKeysTable {
  tenant: string;
  project: string;
  key: string;
  /** sha256 (hex) of the request: target, Content-Type, query parameters and body. */
  request_hash: string;
  /** `pending` while the first request runs intake, `done` once its tickets are stored. */
  state: string;
  /** Once done: the JSON of the IntakeResult (`{tickets, aggregate}`). */
  result: string | null;
  /** When the key was first used (or its row taken over), epoch ms. */
  created: number;
}

export interface Database {
  meta: MetaTable;
  users: UsersTable;
  tenants: TenantsTable;
  projects: ProjectsTable;
  repo_files: RepoFilesTable;
  tickets: TicketsTable & TicketWebhookColumns;
  artifacts: ArtifactsTable;
  stats: StatsTable;
  quota_usage: QuotaUsageTable;
  auth_failures: AuthFailuresTable;
  step_events: StepEventsTable;
  idempotency_keys: IdempotencyKeysTable;
}
