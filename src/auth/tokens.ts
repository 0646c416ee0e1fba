import { randomBytes, randomUUID } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import type { Settings } from '../config/settings.js';
import { meta, type Db } from '../store/index.js';
import { type Principal, type Scope, scopes, SYSTEM_TENANT, unauthorized } from './principal.js';

const ALG = 'HS256';

/** Issues and verifies access tokens with one fixed algorithm and required claims. */
export class TokenService {
  private constructor(
    private readonly key: Uint8Array,
    private readonly settings: Settings,
  ) {}

  /** The key comes from PRESSROOM_JWT_SECRET, else one generated once and kept in the store. */
  static async create(settings: Settings, db: Db): Promise<TokenService> {
    const secret = settings.jwtSecret ?? (await meta.putMetaOnce(db.kysely, 'jwt_secret', randomBytes(32).toString('base64url')));
    return new TokenService(new TextEncoder().encode(secret), settings);
  }

  /** Signs a token for a user; returns it with its lifetime. */
  async issue(claims: { user: string; tenant: string; project: string; scope: Scope; operator: boolean }): Promise<{ token: string; expiresIn: number }> {
    const expiresIn = this.settings.tokenTtlSeconds;
    const token = await new SignJWT({ tenant: claims.tenant, project: claims.project, scope: claims.scope, ...(claims.operator ? { op: true } : {}) })
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

  /** Verifies signature, algorithm, issuer, audience, expiry and that every claim is present. */
  async verify(token: string): Promise<Principal> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: [ALG],
        issuer: this.settings.jwtIssuer,
        audience: this.settings.jwtAudience,
        requiredClaims: ['iss', 'aud', 'sub', 'exp', 'iat', 'jti', 'tenant', 'project', 'scope'],
      });
      const { tenant, project, scope, sub, jti } = payload;
      if (typeof tenant !== 'string' || typeof project !== 'string' || typeof sub !== 'string' || typeof jti !== 'string') {
        throw unauthorized('token claims are malformed');
      }
      if (!scopes.includes(scope as Scope)) throw unauthorized('token scope is unknown');
      const operator = payload.op === true && tenant === SYSTEM_TENANT && scope === 'admin';
      return { user: sub, tenant, project, scope: scope as Scope, operator, tokenId: jti };
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) throw unauthorized('token expired');
      if (err instanceof joseErrors.JOSEError) throw unauthorized('token invalid');
      throw err;
    }
  }
}
