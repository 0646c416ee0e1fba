import type { ComponentChildren } from 'preact';
import { session, type ProjectAccess } from '../state/session';

/** Renders its children with the working project, or asks the operator to choose one. */
export function NeedsProject({ title, children }: { title: string; children: (p: ProjectAccess) => ComponentChildren }) {
  const project = session.value?.project;
  if (!project) {
    return (
      <main id="main" tabIndex={-1}>
        <h1>{title}</h1>
        <p role="status">Choose a working tenant and project at the top of the page.</p>
      </main>
    );
  }
  return <>{children(project)}</>;
}
