// The signed-in session: tokens live in this tab's memory only (no storage), so closing the tab
// or signing out forgets them. A 401 anywhere ends the session but leaves every other state
// (the playground's editors, the address) alone, so signing in again continues the work.
import { computed, signal } from '@preact/signals';
import { requestToken, type Scope } from '../api/tokens';

/** The project the views work on, with its token. */
export interface ProjectAccess {
  readonly tenant: string;
  readonly project: string;
  readonly scope: Scope;
  readonly token: string;
}

export interface Session {
  readonly user: string;
  /** Operator token (tenant `system`, scope admin) when the user signed in as the operator. */
  readonly operatorToken: string | null;
  /** null for the operator until a project is chosen. */
  readonly project: ProjectAccess | null;
}

export const session = signal<Session | null>(null);
/** Why the sign-in page is shown again (401, sign out), read out by its alert. */
export const signInNotice = signal<string | null>(null);
export const isOperator = computed(() => session.value?.operatorToken != null);

// The operator's password, kept in memory only while the operator is signed in: switching
// tenant and project needs a token for that project, and the token service issues it only
// for the password. Other users never switch, so theirs is never kept.
let operatorPassword: string | null = null;

/** True when the token's payload carries the operator flag (the service checks it; the Studio only adapts its views). */
function isOperatorToken(token: string): boolean {
  try {
    const payload = JSON.parse(atob(token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))) as { op?: unknown };
    return payload.op === true;
  } catch {
    return false;
  }
}

export interface SignInForm {
  tenant: string;
  project: string;
  user: string;
  password: string;
  scope: Scope;
}

/** Signs in with the token service; the operator (tenant `system`) then picks a project. */
export async function signIn(form: SignInForm): Promise<void> {
  const token = await requestToken(form.tenant, form.project, form.user, form.password, form.scope);
  if (isOperatorToken(token)) {
    operatorPassword = form.password;
    session.value = { user: form.user, operatorToken: token, project: null };
  } else {
    operatorPassword = null;
    session.value = { user: form.user, operatorToken: null, project: { tenant: form.tenant, project: form.project, scope: form.scope, token } };
  }
  signInNotice.value = null;
}

/** The operator works on another tenant and project (a token with scope admin for it). */
export async function switchProject(tenant: string, project: string): Promise<void> {
  const current = session.value;
  if (!current?.operatorToken || operatorPassword === null) throw new Error('only the operator can switch projects');
  const token = await requestToken(tenant, project, current.user, operatorPassword, 'admin');
  session.value = { ...current, project: { tenant, project, scope: 'admin', token } };
}

export function signOut(): void {
  operatorPassword = null;
  session.value = null;
  signInNotice.value = 'You are signed out.';
}

/** Called on any 401: back to the sign-in page, everything else kept. */
export function expireSession(message: string): void {
  if (!session.value) return;
  operatorPassword = null;
  session.value = null;
  signInNotice.value = `Your session has ended (${message}). Sign in again to continue; your work is kept.`;
}
