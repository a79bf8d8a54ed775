/**
 * The public home page at /: the live demo feed (`GET /stats/feed`) and the hero stat (`GET /stats/hero`), with the
 * marketing beacon (`POST /marketing/events`) sent on each call to action, as those operations are meant to be used.
 * The demo workspace's competitor names and event text are hostile input like any other: rendered as text.
 */
import { StrictMode, useEffect, useState } from "react";
import { createRoot } from "react-dom/client";
import { client, errorText, type Schemas } from "./api.js";
import { SeverityBadge, TypeBadge } from "./components.js";
import { dateTime } from "./format.js";
import "./app.css";

function beacon(event: string) {
  // keepalive: the beacon survives the navigation the click starts.
  void client.POST("/marketing/events", {
    body: {
      event,
      location: window.location.href.slice(0, 2048),
      event_id: crypto.randomUUID(),
      source_hostname: window.location.hostname,
    },
    keepalive: true,
  });
}

function Cta({ href, event, children, primary }: { href: string; event: string; children: string; primary?: boolean }) {
  return (
    <a href={href} className={primary ? "button" : "button secondary"} onClick={() => beacon(event)}>
      {children}
    </a>
  );
}

function Home() {
  const [feed, setFeed] = useState<Schemas["DemoFeed"] | null>(null);
  const [hero, setHero] = useState<Schemas["HeroStat"] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    client.GET("/stats/feed", { params: { query: { limit: 6 } } }).then(({ data, error }) => {
      if (data) setFeed(data);
      else setError(errorText(error));
    });
    client.GET("/stats/hero").then(({ data }) => data && setHero(data));
  }, []);
  return (
    <>
      <header className="top">
        <span className="brand">Rivalscope</span>
        <nav aria-label="Account">
          <ul>
            <li>
              <a href="/app/sign-in" onClick={() => beacon("cta_sign_in")}>
                Sign in
              </a>
            </li>
          </ul>
        </nav>
      </header>
      <main id="main">
        <section className="hero" aria-labelledby="hero-title">
          <h1 id="hero-title">Know when a competitor moves, the day it moves.</h1>
          <p>
            Rivalscope watches your competitors' pricing, product, hiring and messaging pages and tells your team what
            changed, with the evidence.
          </p>
          {hero &&
            (hero.value !== null ? (
              <p className="stat">
                <strong>{hero.value}</strong> {hero.label}
              </p>
            ) : (
              <p className="stat">
                {hero.label}: measured once 20 dated changes are in ({hero.sample_size} so far).
              </p>
            ))}
          <div className="actions">
            <Cta href="/app/sign-up" event="cta_sign_up" primary>
              Start free
            </Cta>
            <Cta href="/docs" event="cta_api_docs">
              Read the API reference
            </Cta>
          </div>
        </section>
        <section aria-labelledby="feed-title" className="card">
          <h2 id="feed-title">Live from the demo workspace</h2>
          {error && <p role="alert">{error}</p>}
          {!feed ? (
            <p role="status">Loading the live feed…</p>
          ) : feed.events.length === 0 ? (
            <p className="empty">The demo feed is quiet right now.</p>
          ) : (
            <>
              <p className="muted">
                Tracking {feed.competitor_names.join(", ")} · the last {Math.round(feed.window_hours / 24)} days
              </p>
              <ol className="feed" aria-label="Demo events">
                {feed.events.map((e) => (
                  <li key={e.id} className="event">
                    <div className="badges">
                      <SeverityBadge severity={e.severity} />
                      <TypeBadge type={e.event_type} />
                    </div>
                    <h3 className="event-title">{e.title}</h3>
                    <p className="muted">
                      {e.competitor_name} · {dateTime(e.detected_at)} · {e.source_label}
                    </p>
                    <p>{e.summary}</p>
                  </li>
                ))}
              </ol>
            </>
          )}
        </section>
      </main>
    </>
  );
}

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <Home />
  </StrictMode>,
);
