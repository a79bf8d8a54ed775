/**
 * The dashboard at /app: React, React Router for the screens, TanStack Query for server state (loading, errors,
 * refetching after a change), all calls through the generated SDK (api.ts).
 */
import { QueryClientProvider, useQueryClient } from "@tanstack/react-query";
import { lazy, StrictMode, Suspense, type ReactNode } from "react";
import { createRoot } from "react-dom/client";
import { BrowserRouter, Link, Navigate, NavLink, Route, Routes, useLocation, useNavigate } from "react-router";
import { client } from "./api.js";
import { $api, queryClient } from "./query.js";
import { Loading } from "./components.js";
import { EventPage } from "./pages/event.js";
import { EventsPage } from "./pages/events.js";
import { ForgotPasswordPage, ResetPasswordPage, SignInPage, SignUpPage } from "./pages/auth.js";
import "./app.css";

// A session that ended (expired, revoked by a password reset, signed out in another tab) sends the person to sign in,
// then back to the screen they were on.
client.use({
  onResponse({ response, request }) {
    const here = window.location.pathname;
    const publicScreen = /^\/app\/(sign-in|sign-up|forgot-password|reset-password)/.test(here);
    if (response.status === 401 && !publicScreen && !new URL(request.url).pathname.startsWith("/auth/")) {
      const next = here.replace(/^\/app/, "") + window.location.search;
      window.location.assign(`/app/sign-in?next=${encodeURIComponent(next)}`);
    }
    return response;
  },
});

// Screens past the first one load when opened: the first screen's JavaScript stays small.
const CompetitorsPage = lazy(() => import("./pages/competitors.js"));
const CompetitorPage = lazy(() => import("./pages/competitor.js"));
const AlertRulesPage = lazy(() => import("./pages/alert-rules.js"));
const DigestsPage = lazy(() => import("./pages/digests.js"));
const DigestPage = lazy(() => import("./pages/digest.js"));
const SettingsPage = lazy(() => import("./pages/settings.js"));
const AdminPage = lazy(() => import("./pages/admin.js"));
const AskPage = lazy(() => import("./pages/ask.js"));

function SignedIn({ children }: { children: ReactNode }) {
  const location = useLocation();
  const me = $api.useQuery("get", "/auth/me");
  if (me.isPending) return <Loading />;
  if (me.isError) {
    const next = `${location.pathname}${location.search}`;
    return <Navigate to={`/sign-in?next=${encodeURIComponent(next)}`} replace />;
  }
  return <Shell isAdmin={me.data.user.is_admin}>{children}</Shell>;
}

function Shell({ children, isAdmin }: { children: ReactNode; isAdmin: boolean }) {
  const navigate = useNavigate();
  const queries = useQueryClient();
  const signOut = async () => {
    await client.DELETE("/auth/session");
    queries.clear();
    navigate("/sign-in");
  };
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <Link to="/events" className="brand">
          Rivalscope
        </Link>
        <nav aria-label="Main">
          <ul>
            <li>
              <NavLink to="/events">Events</NavLink>
            </li>
            <li>
              <NavLink to="/competitors">Competitors</NavLink>
            </li>
            <li>
              <NavLink to="/alert-rules">Alert rules</NavLink>
            </li>
            <li>
              <NavLink to="/digests">Digests</NavLink>
            </li>
            <li>
              <NavLink to="/settings">Settings</NavLink>
            </li>
            {isAdmin && (
              <li>
                <NavLink to="/admin">Operations</NavLink>
              </li>
            )}
          </ul>
        </nav>
        <button type="button" className="link" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        <Suspense fallback={<Loading />}>{children}</Suspense>
      </main>
    </>
  );
}

function Public({ children }: { children: ReactNode }) {
  return (
    <main id="main" className="narrow">
      <p className="brand">
        <a href="/">Rivalscope</a>
      </p>
      {children}
    </main>
  );
}

function App() {
  const guard = (page: ReactNode) => <SignedIn>{page}</SignedIn>;
  return (
    <Routes>
      <Route path="/sign-in" element={<Public children={<SignInPage />} />} />
      <Route path="/sign-up" element={<Public children={<SignUpPage />} />} />
      <Route path="/forgot-password" element={<Public children={<ForgotPasswordPage />} />} />
      <Route path="/reset-password" element={<Public children={<ResetPasswordPage />} />} />
      <Route path="/events" element={guard(<EventsPage />)} />
      <Route path="/events/:eventId" element={guard(<EventPage />)} />
      <Route path="/competitors" element={guard(<CompetitorsPage />)} />
      <Route path="/competitors/:competitorId" element={guard(<CompetitorPage />)} />
      <Route path="/alert-rules" element={guard(<AlertRulesPage />)} />
      <Route path="/digests" element={guard(<DigestsPage />)} />
      <Route path="/digests/:digestId" element={guard(<DigestPage />)} />
      <Route path="/settings" element={guard(<SettingsPage />)} />
      <Route path="/admin" element={guard(<AdminPage />)} />
      <Route path="/ask" element={guard(<AskPage />)} />
      <Route path="*" element={<Navigate to="/events" replace />} />
    </Routes>
  );
}

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <BrowserRouter basename="/app">
        <App />
      </BrowserRouter>
    </QueryClientProvider>
  </StrictMode>,
);
