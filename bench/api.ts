// HTTP client helpers for the benchmark: tokens, tenant and project set-up, repository
// uploads, render submissions and waiting for the queue to drain. Submissions go through
// undici's request(), not fetch(): the client shares the machine's cores with the service, and
// fetch() spent 1.0 ms of CPU per 60 KB submission here against 0.44 ms for request().
import { request } from 'undici';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** timeToWait of synchronous requests: the contract's maximum. */
const SYNC_WAIT_MS = 1_200_000;

async function call(url: string, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(url, { ...init, headers: { accept: 'application/json', ...(init.headers as Record<string, string>) } });
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${await res.text()}`);
  return res;
}

export async function token(base: string, tenant: string, project: string, scope: string): Promise<string> {
  const body = new URLSearchParams({ username: 'admin', password: 'bench-admin-pw', project, scope }).toString();
  const res = await call(`${base}/auth/${tenant}/tokens`, { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  return ((await res.json()) as { access_token: string }).access_token;
}

export interface Submission {
  status: number;
  ms: number;
  tickets: string[];
}

/** One project of a running service, as a client with a jobs and an admin token. */
export class ProjectClient {
  private constructor(
    readonly base: string,
    readonly tenant: string,
    readonly project: string,
    private readonly jobs: Record<string, string>,
    private readonly admin: Record<string, string>,
  ) {}

  /** Creates the tenant (unless it exists) and the project, and takes tokens for it. */
  static async create(base: string, tenant: string, project: string): Promise<ProjectClient> {
    const op = { authorization: `Bearer ${await token(base, 'system', 'admin', 'admin')}` };
    const tenantRes = await fetch(`${base}/rest/tenants?name=${tenant}`, { method: 'POST', headers: { ...op, accept: 'application/json' } });
    if (!tenantRes.ok && tenantRes.status !== 409) throw new Error(`create tenant ${tenant}: ${tenantRes.status} ${await tenantRes.text()}`);
    await call(`${base}/rest/tenants/${tenant}/projects?name=${project}`, { method: 'POST', headers: op });
    const jobs = { authorization: `Bearer ${await token(base, tenant, project, 'jobs')}` };
    const admin = { authorization: `Bearer ${await token(base, tenant, project, 'admin')}` };
    return new ProjectClient(base, tenant, project, jobs, admin);
  }

  /** Writes a file of the project's repository, e.g. `master-documents/sheet.typ`. */
  async putFile(rel: string, body: Buffer | string): Promise<void> {
    await call(`${this.base}/rest/repository/files/tenants/${this.tenant}/projects/${this.project}/${rel}`, {
      method: 'PUT',
      headers: { ...this.admin, 'content-type': 'application/octet-stream' },
      body,
    });
  }

  private renderUrl(query: string): string {
    return `${this.base}/rest/tenants/${this.tenant}/projects/${this.project}/renderpdf${query ? `?${query}` : ''}`;
  }

  /** An asynchronous render request: status, milliseconds to the whole answer, the ticket ids. */
  async submit(body: Buffer, query: string, contentType = 'application/zip'): Promise<Submission> {
    const started = performance.now();
    const res = await request(this.renderUrl(query), { method: 'POST', body, headers: { ...this.jobs, 'content-type': contentType, accept: 'application/json' } });
    const text = await res.body.text();
    const ms = performance.now() - started;
    const tickets = res.statusCode === 202 ? (JSON.parse(text) as { tickets: { id: string }[] }).tickets.map((t) => t.id) : [];
    return { status: res.statusCode, ms, tickets };
  }

  /** A synchronous render (`timeToWait`): milliseconds until the whole PDF is read. */
  async renderSync(body: Buffer, query: string, contentType = 'application/zip'): Promise<{ ms: number; bytes: number; ticket: string }> {
    const started = performance.now();
    const url = this.renderUrl(`timeToWait=${SYNC_WAIT_MS}${query ? `&${query}` : ''}`);
    // undici gives up after 300 s without headers by default, before a long render (a 10 000-product
    // catalogue on a slow day) or the service's own 408 at timeToWait could answer.
    const timeouts = { headersTimeout: SYNC_WAIT_MS + 60_000, bodyTimeout: SYNC_WAIT_MS + 60_000 };
    const res = await request(url, { method: 'POST', body, ...timeouts, headers: { ...this.jobs, 'content-type': contentType, accept: 'application/pdf' } });
    if (res.statusCode !== 200) {
      const text = await res.body.text();
      let message = text;
      try {
        message = (JSON.parse(text) as { message?: string }).message ?? text;
      } catch {
        // not JSON: the text as it is
      }
      throw new Error(`sync render: ${res.statusCode} ${message}`);
    }
    const bytes = (await res.body.arrayBuffer()).byteLength;
    const ticket = res.headers['x-ticket-id'];
    return { ms: performance.now() - started, bytes, ticket: typeof ticket === 'string' ? ticket : '' };
  }

  async openTickets(): Promise<number> {
    const res = await call(`${this.base}/rest/tenants/${this.tenant}/projects/${this.project}/tickets`, { headers: this.jobs });
    return ((await res.json()) as string[]).length;
  }

  /**
   * Resolves when no ticket of the project is open, with the time (performance.now()) it saw
   * that. Polls seldom while many are open (each poll costs the server a query) and every
   * few ms near the end, so the end is seen within a few ms.
   */
  async waitIdle(): Promise<number> {
    let msPerTicket = 5;
    let last: { at: number; open: number } | undefined;
    for (;;) {
      const open = await this.openTickets();
      const at = performance.now();
      if (open === 0) return at;
      if (last && open < last.open) msPerTicket = (at - last.at) / (last.open - open);
      last = { at, open };
      await sleep(Math.max(3, Math.min(250, (open * msPerTicket) / 2)));
    }
  }

  async status(ticket: string): Promise<{ complete: boolean; status: string | null; errorCode: string | null; errorMessage: string | null; processingPages: number }> {
    const res = await call(`${this.base}/rest/tenants/${this.tenant}/projects/${this.project}/tickets/${ticket}/status`, { headers: this.jobs });
    return (await res.json()) as { complete: boolean; status: string | null; errorCode: string | null; errorMessage: string | null; processingPages: number };
  }

  /** Throws when one of up to `n` tickets spread over `tickets` did not render. */
  async expectRendered(tickets: string[], n = 20): Promise<void> {
    const step = Math.max(1, Math.floor(tickets.length / n));
    for (let i = tickets.length - 1; i >= 0; i -= step) {
      const s = await this.status(tickets[i]!);
      if (!s.complete || !s.status?.endsWith('.succeeded') || s.errorCode) throw new Error(`ticket ${tickets[i]} did not render: ${s.status} ${s.errorCode ?? ''} ${s.errorMessage ?? ''}`);
    }
  }
}

/**
 * `n` asynchronous submissions of `bodyOf(i)` from `clients` concurrent clients (client c sends
 * i = c, c + clients, …). Returns every answer, in submission order.
 */
export async function submitAll(client: ProjectClient, n: number, clients: number, bodyOf: (i: number) => Buffer, query: string): Promise<Submission[]> {
  const answers: Submission[] = new Array<Submission>(n);
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let i = c; i < n; i += clients) answers[i] = await client.submit(bodyOf(i), query);
    }),
  );
  return answers;
}
