import { ErrorBoundary, LocationProvider, Route, Router, useLocation } from 'preact-iso';
import { useEffect } from 'preact/hooks';
import { Header } from './components/header';
import { session } from './state/session';
import { Playground } from './views/playground/playground';
import { RepositoryView } from './views/repository/repository';
import { SignIn } from './views/sign-in';
import { StatisticsView } from './views/statistics/statistics';
import { TicketList } from './views/tickets/ticket-list';
import { TicketPage } from './views/tickets/ticket-page';

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
