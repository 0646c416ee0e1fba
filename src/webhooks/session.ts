import type { Agent } from 'undici';
import { SealError, sealKey, unseal } from '../config/sealed.js';
import type { Context } from '../context.js';
import { AddressPolicy, guardedAgent } from '../net/index.js';
import { exchange, type Exchange, type ExchangeLimits, type OutgoingRequest } from './http.js';
import { failureLine, webhookErrorCodes, type DeliveryFailure } from './outcome.js';

/** Response bytes kept for export parameters and the `trace` profile. */
const MAX_BODY_BYTES = 1 << 20;
/** Response text appended to a message under the `trace` profile. */
const TRACE_CHARS = 4000;

/** A configuration problem found while preparing a request (reported, never redelivered by 5xx rules). */
export class DeliveryConfigError extends Error {}

/**
 * What one webhook step run shares: the guarded agents (one per connect timeout, closed at the
 * end), the deployment's seal key, and every secret opened so far — those are cut out of any
 * response text before it reaches a ticket message, so an echoing receiver cannot leak them.
 */
export class WebhookSession {
  private readonly agents = new Map<number, Agent>();
  private readonly policy: AddressPolicy;
  private readonly secrets = new Set<string>();
  private readonly trace: boolean;

  constructor(readonly ctx: Context) {
    this.policy = new AddressPolicy(ctx.settings.allowPrivateAddresses);
    this.trace = ctx.settings.profiles.includes('trace');
  }

  /** Opens a possibly sealed config value, in memory only. `field` names it in errors (never the value). */
  async secret(value: string, field: string): Promise<string> {
    let plain: string;
    try {
      plain = unseal(await sealKey(this.ctx.settings, this.ctx.db.kysely), value);
    } catch (err) {
      if (err instanceof SealError) throw new DeliveryConfigError(`${field}: ${err.message}`);
      throw err;
    }
    if (plain.length >= 4) this.secrets.add(plain);
    return plain;
  }

  /** Sends one request under the address policy with the connection's time limits. */
  send(req: OutgoingRequest, limits: { connectTimeoutMs: number; timeoutMs: number; maxRedirects: number }): Promise<Exchange> {
    let agent = this.agents.get(limits.connectTimeoutMs);
    if (!agent) {
      agent = guardedAgent(this.policy, { connectTimeoutMs: limits.connectTimeoutMs, headersTimeoutMs: limits.timeoutMs, bodyTimeoutMs: limits.timeoutMs });
      this.agents.set(limits.connectTimeoutMs, agent);
    }
    const full: ExchangeLimits = { timeoutMs: limits.timeoutMs, maxRedirects: limits.maxRedirects, maxBodyBytes: MAX_BODY_BYTES };
    return exchange(agent, req, full);
  }

  /** The ticket message of a failed exchange; with the `trace` profile, plus the response text (secrets cut out). */
  describe(ex: Exchange, opts: { withBody?: boolean } = {}): string {
    const line = failureLine(ex);
    if (!this.trace || opts.withBody === false || ex.body.length === 0) return line;
    let text = ex.body.toString('utf8').slice(0, TRACE_CHARS);
    for (const s of this.secrets) text = text.split(s).join('[redacted]');
    return `${line}\n${text}`;
  }

  /** Turns a thrown configuration or seal problem into a failure; anything else is rethrown. */
  static configFailure(err: unknown): DeliveryFailure {
    if (err instanceof DeliveryConfigError) return { errorCode: webhookErrorCodes.config, message: err.message };
    throw err;
  }

  /** Closes the agents (their idle keep-alive connections). */
  async close(): Promise<void> {
    await Promise.all([...this.agents.values()].map((a) => a.close().catch(() => {})));
    this.agents.clear();
  }
}
