import { Field } from '../components/field';
import { useState } from 'preact/hooks';
import { describeError } from '../api/errors';
import type { Scope } from '../api/tokens';
import { signIn, signInNotice } from '../state/session';

// The last tenant, project and user name typed in this tab, so signing in again after a 401
// needs only the password (never the password itself).
const remembered = { tenant: '', project: '', user: '' };

/** The token service's form: Tenant, Project, User name, Password, Scope. */
export function SignIn() {
  const [form, setForm] = useState({ ...remembered, password: '', scope: 'admin' as Scope });
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (key: keyof typeof form) => (e: Event) => setForm({ ...form, [key]: (e.currentTarget as HTMLInputElement).value });

  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    Object.assign(remembered, { tenant: form.tenant, project: form.project, user: form.user });
    try {
      await signIn(form);
    } catch (err) {
      setError(describeError(err));
      setBusy(false);
    }
  }

  return (
    <main id="main" class="sign-in">
      <form onSubmit={submit} aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">pressroom Studio</h1>
        <p class="hint">Sign in with a user of the project. The operator signs in to tenant <code>system</code> and then chooses a project.</p>
        {signInNotice.value && <p role="status" class="notice">{signInNotice.value}</p>}
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
        <label>
          Tenant
          <input name="tenant" required autoComplete="organization" value={form.tenant} onInput={set('tenant')} />
        </label>
        <label>
          Project
          <input name="project" required value={form.project} onInput={set('project')} />
        </label>
        <label>
          User name
          <input name="username" required autoComplete="username" value={form.user} onInput={set('user')} />
        </label>
        <label>
          Password
          <input name="password" type="password" required autoComplete="current-password" value={form.password} onInput={set('password')} />
        </label>
        <Field label="Scope">
          {(id) => (
            <select id={id} name="scope" value={form.scope} onChange={set('scope')}>
              <option value="admin">admin</option>
              <option value="jobs">jobs</option>
            </select>
          )}
        </Field>
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}
