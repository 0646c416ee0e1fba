import { randomBytes, randomUUID } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import type { Settings } from '../config/settings.js';
import { meta, type Db } from '../store/index.js';
import { IdentityCheck } from './identity.js';
import { type Principal, type Scope, scopes, SYSTEM_TENANT, unauthorized } from './principal.js';
import type { Grant } from './users.js';

const ALG = 'HS256';
/** Verified tokens remembered per process, so a client's every request is not another HMAC and JSON parse (~0.5 ms). */
const MAX_VERIFIED = 1000;

/**
 * Issues and verifies access tokens with one fixed algorithm and required claims. A token also
 * carries the identity it was issued for (claims `ut`, `us`, `tid`, `pid`: see TokenIdentity),
 * checked against the store on every request through a cache of PRESSROOM_TOKEN_RECHECK_MS.
 */
export class TokenService {
  /** Signature-checked payloads by token, oldest first; an entry is used only until the token's `exp`. */
  private readonly verified = new Map<string, JWTPayload>();

  private constructor(
    private readonly key: Uint8Array,
    private readonly settings: Settings,
    private readonly identities: IdentityCheck,
  ) {}

  /** The key comes from PRESSROOM_JWT_SECRET, else one generated once and kept in the store. */
  static async create(settings: Settings, db: Db, now: () => number = Date.now): Promise<TokenService> {
    const secret = settings.jwtSecret ?? (await meta.putMetaOnce(db.kysely, 'jwt_secret', randomBytes(32).toString('base64url')));
    return new TokenService(new TextEncoder().encode(secret), settings, new IdentityCheck(db, settings.tokenRecheckMs, now));
  }

  /** Signs a token for a grant; returns it with its lifetime. */
  async issue(claims: Grant): Promise<{ token: string; expiresIn: number }> {
    const expiresIn = this.settings.tokenTtlSeconds;
    const { identity } = claims;
    const token = await new SignJWT({
      tenant: claims.tenant,
      project: claims.project,
      scope: claims.scope,
      ...(claims.operator ? { op: true } : {}),
      ut: identity.userTenant,
      us: identity.userStamp,
      ...(identity.tenantId !== null && identity.projectId !== null ? { tid: identity.tenantId, pid: identity.projectId } : {}),
    })
      .setProtectedHeader({ alg: ALG, typ: 'JWT' })
      .setIssuer(this.settings.jwtIssuer)
      .setAudience(this.settings.jwtAudience)
      .setSubject(claims.user)
      .setIssuedAt()
      .setExpirationTime(`${expiresIn}s`)
      .setJti(randomUUID())
      .sign(this.key);
    return { token, expiresIn };
  }

  /**
   * Verifies signature, algorithm, issuer, audience, expiry and that every claim is present, then
   * that the user, tenant and project are still the ones the token was issued for.
   */
  async verify(token: string): Promise<Principal> {
    try {
      const payload = await this.checkSignature(token);
      const { tenant, project, scope, sub, jti, ut, us, tid, pid } = payload;
      if (typeof tenant !== 'string' || typeof project !== 'string' || typeof sub !== 'string' || typeof jti !== 'string' || typeof ut !== 'string' || typeof us !== 'string') {
        throw unauthorized('token claims are malformed');
      }
      if (!scopes.includes(scope as Scope)) throw unauthorized('token scope is unknown');
      const identity = { userTenant: ut, userStamp: us, tenantId: typeof tid === 'string' ? tid : null, projectId: typeof pid === 'string' ? pid : null };
      if (!(await this.identities.holds(sub, tenant, project, identity))) {
        throw unauthorized('token revoked: its user, password, tenant or project has changed since it was issued');
      }
      const operator = payload.op === true && tenant === SYSTEM_TENANT && scope === 'admin';
      return { user: sub, tenant, project, scope: scope as Scope, operator, tokenId: jti };
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) throw unauthorized('token expired');
      if (err instanceof joseErrors.JOSEError) throw unauthorized('token invalid');
      throw err;
    }
  }

  /** The payload of a token whose signature, algorithm, issuer, audience, expiry and claims check out. */
  private async checkSignature(token: string): Promise<JWTPayload> {
    const known = this.verified.get(token);
    // jose judges expiry by the wall clock; so does this shortcut.
    if (known && known.exp! * 1000 > Date.now()) return known;
    if (known) this.verified.delete(token);
    const { payload } = await jwtVerify(token, this.key, {
      algorithms: [ALG],
      issuer: this.settings.jwtIssuer,
      audience: this.settings.jwtAudience,
      requiredClaims: ['iss', 'aud', 'sub', 'exp', 'iat', 'jti', 'tenant', 'project', 'scope', 'ut', 'us'],
    });
    this.verified.set(token, payload);
    if (this.verified.size > MAX_VERIFIED) this.verified.delete(this.verified.keys().next().value!);
    return payload;
  }
}
