import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { AddressNotAllowedError, type AddressPolicy } from './address-policy.js';

/** A DNS lookup that drops refused addresses and fails when none is left. */
function guardedLookup(policy: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as LookupAddress[];
      const ok = list.filter((a) => policy.isAllowed(a.address, hostname));
      if (ok.length === 0) return callback(new AddressNotAllowedError(hostname, list[0]?.address ?? '?'), '', 0);
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, ok);
      return callback(null, ok[0]!.address, ok[0]!.family);
    });
  };
}

export interface GuardedAgentOptions {
  /** Longest wait for a TCP/TLS connection. @defaultValue 10000 */
  connectTimeoutMs?: number;
  /** Longest wait for response headers. @defaultValue 30000 */
  headersTimeoutMs?: number;
  /** Longest pause while receiving the body. @defaultValue 30000 */
  bodyTimeoutMs?: number;
}

/**
 * An undici dispatcher whose every connection is checked against the policy before it is
 * made: IP literals directly, host names on each resolved address. Use it for all traffic to
 * tenant-supplied URLs, with `redirect: 'manual'` or undici's redirect handling (each hop is
 * a new connection and is checked again).
 */
export function guardedAgent(policy: AddressPolicy, opts: GuardedAgentOptions = {}): Agent {
  const connectTimeout = opts.connectTimeoutMs ?? 10_000;
  const base = buildConnector({ timeout: connectTimeout, lookup: guardedLookup(policy) } as buildConnector.BuildOptions);
  const connect: buildConnector.connector = (options, callback) => {
    const host = options.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) && !policy.isAllowed(host, host)) {
      callback(new AddressNotAllowedError(host, host), null);
      return;
    }
    base(options, callback);
  };
  return new Agent({ connect, headersTimeout: opts.headersTimeoutMs ?? 30_000, bodyTimeout: opts.bodyTimeoutMs ?? 30_000 });
}
