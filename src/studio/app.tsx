import { ErrorBoundary, lazy, LocationProvider, Route, Router, useLocation } from 'preact-iso';
import { useEffect } from 'preact/hooks';
import { Header } from './components/header';
import { session } from './state/session';
import { SignIn } from './views/sign-in';
import { TicketList } from './views/tickets/ticket-list';
import { TicketPage } from './views/tickets/ticket-page';

// The editor and chart libraries load with the views that use them, not with the first page.
const Playground = lazy(() => import('./views/playground/playground').then((m) => m.Playground));
const RepositoryView = lazy(() => import('./views/repository/repository').then((m) => m.RepositoryView));
const StatisticsView = lazy(() => import('./views/statistics/statistics').then((m) => m.StatisticsView));

function Home() {
  const { route } = useLocation();
  useEffect(() => route('/studio/tickets', true), [route]);
  return null;
}

function NotFound() {
  return (
    <main id="main" tabIndex={-1}>
      <h1>Not found</h1>
      <p>This page of the Studio does not exist.</p>
    </main>
  );
}

/** Signed out: the sign-in page at whatever address was asked for; signed in: the views. */
function Shell() {
  if (!session.value) return <SignIn />;
  return (
    <>
      <Header />
      <ErrorBoundary>
        <Router>
          <Route path="/studio" component={Home} />
          <Route path="/studio/tickets" component={TicketList} />
          <Route path="/studio/tickets/:id" component={TicketPage} />
          <Route path="/studio/playground" component={Playground} />
          <Route path="/studio/repository" component={RepositoryView} />
          <Route path="/studio/statistics" component={StatisticsView} />
          <Route default component={NotFound} />
        </Router>
      </ErrorBoundary>
    </>
  );
}

export function App() {
  return (
    <LocationProvider>
      <Shell />
    </LocationProvider>
  );
}
