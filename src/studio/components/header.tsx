import { useLocation } from 'preact-iso';
import { isOperator, session, signOut } from '../state/session';
import { ProjectSwitcher } from './project-switcher';

const links = [
  { href: '/studio/tickets', label: 'Tickets' },
  { href: '/studio/playground', label: 'Playground' },
  { href: '/studio/repository', label: 'Repository' },
  { href: '/studio/statistics', label: 'Statistics' },
];

/** Skip link, the four views, where the user works, and sign out. */
export function Header() {
  const { path } = useLocation();
  const s = session.value!;
  return (
    <header class="top">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <span class="brand">pressroom Studio</span>
      <nav aria-label="Views">
        <ul>
          {links.map((l) => (
            <li key={l.href}>
              <a href={l.href} aria-current={path.startsWith(l.href) ? 'page' : undefined}>
                {l.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <div class="who">
        {isOperator.value ? (
          <ProjectSwitcher />
        ) : (
          <span>
            {s.project?.tenant} / {s.project?.project} · {s.project?.scope}
          </span>
        )}
        <span class="user">{s.user}</span>
        <button type="button" onClick={signOut}>
          Sign out
        </button>
      </div>
    </header>
  );
}
