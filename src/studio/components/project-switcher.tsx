import { Field } from '../components/field';
import { useEffect, useState } from 'preact/hooks';
import { api, ok } from '../api/client';
import { describeError } from '../api/errors';
import { session, switchProject } from '../state/session';

/** The operator's choice of tenant and project, from the tenants API. */
export function ProjectSwitcher() {
  const current = session.value?.project;
  const [tenants, setTenants] = useState<string[]>([]);
  const [projects, setProjects] = useState<string[]>([]);
  const [tenant, setTenant] = useState(current?.tenant ?? '');
  const [project, setProject] = useState(current?.project ?? '');
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    api.GET('/rest/tenants').then((r) => setTenants(ok(r).map((t) => t.name)), (err: unknown) => setError(describeError(err)));
  }, []);
  useEffect(() => {
    if (!tenant) return setProjects([]);
    api.GET('/rest/tenants/{tenant}/projects', { params: { path: { tenant } } }).then(
      (r) => {
        const names = ok(r).map((p) => p.name);
        setProjects(names);
        setProject((p) => (names.includes(p) ? p : (names[0] ?? '')));
      },
      (err: unknown) => setError(describeError(err)),
    );
  }, [tenant]);

  async function submit(e: Event) {
    e.preventDefault();
    setError(null);
    try {
      await switchProject(tenant, project);
    } catch (err) {
      setError(describeError(err));
    }
  }

  return (
    <form class="switcher" onSubmit={submit}>
      <Field label="Working tenant">
        {(id) => (
          <select id={id} value={tenant} onChange={(e) => setTenant(e.currentTarget.value)}>
            <option value="">—</option>
            {tenants.map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Working project">
        {(id) => (
          <select id={id} value={project} onChange={(e) => setProject(e.currentTarget.value)}>
            {projects.map((p) => (
              <option key={p}>{p}</option>
            ))}
          </select>
        )}
      </Field>
      <button type="submit" disabled={!tenant || !project}>
        Switch
      </button>
      {error && <span role="alert">{error}</span>}
    </form>
  );
}
