/** Sign in, sign up, forgot and reset password: public screens. */
import { useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Link, useNavigate, useSearchParams } from "react-router";
import { client, errorText } from "../api.js";
import { $api } from "../query.js";
import { ErrorNote, usePageTitle } from "../components.js";

/** Where to go after signing in: a path inside the app only (never another site: no open redirect). */
function nextPath(params: URLSearchParams): string {
  const next = params.get("next") ?? "";
  return next.startsWith("/") && !next.startsWith("//") && !next.startsWith("/\\") ? next : "/events";
}

function useSignedIn() {
  const navigate = useNavigate();
  const queries = useQueryClient();
  const [params] = useSearchParams();
  return async () => {
    await queries.invalidateQueries();
    navigate(nextPath(params), { replace: true });
  };
}

export function SignInPage() {
  usePageTitle("Sign in");
  const [params] = useSearchParams();
  const signedIn = useSignedIn();
  const session = $api.useMutation("post", "/auth/session", { onSuccess: signedIn });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    session.mutate({ body: { email: String(form.get("email")), password: String(form.get("password")) } });
  };
  return (
    <>
      <h1>Sign in</h1>
      <form onSubmit={submit} className="stack">
        <label>
          Email
          <input name="email" type="email" autoComplete="username" required />
        </label>
        <label>
          Password
          <input name="password" type="password" autoComplete="current-password" required />
        </label>
        <ErrorNote error={session.error} />
        <button type="submit" disabled={session.isPending}>
          Sign in
        </button>
      </form>
      <p>
        <Link to={`/forgot-password`}>Forgot your password?</Link> ·{" "}
        <Link to={`/sign-up${params.toString() ? `?${params}` : ""}`}>Create an account</Link>
      </p>
    </>
  );
}

export function SignUpPage() {
  usePageTitle("Create an account");
  const signedIn = useSignedIn();
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const email = String(form.get("email"));
    const password = String(form.get("password"));
    setBusy(true);
    setError(null);
    // Sign-up answers a bearer token for API clients; the app drops it and opens a cookie session instead (api.ts).
    const signUp = await client.POST("/auth/signup", {
      body: { email, password, name: String(form.get("name")), digest_timezone: String(form.get("zone")) || null },
    });
    if (signUp.error) {
      setBusy(false);
      return setError(signUp.error);
    }
    const session = await client.POST("/auth/session", { body: { email, password } });
    setBusy(false);
    if (session.error) return setError(session.error);
    await signedIn();
  };
  return (
    <>
      <h1>Create an account</h1>
      <form onSubmit={submit} className="stack">
        <label>
          Name
          <input name="name" autoComplete="name" required maxLength={200} />
        </label>
        <label>
          Email
          <input name="email" type="email" autoComplete="username" required />
        </label>
        <label>
          Password
          <input name="password" type="password" autoComplete="new-password" required minLength={8} />
          <small>At least 8 characters.</small>
        </label>
        <label>
          Time zone for digests
          <input name="zone" defaultValue={zone} maxLength={64} />
        </label>
        {error ? <ErrorNote error={error} /> : null}
        <button type="submit" disabled={busy}>
          Create account
        </button>
      </form>
      <p>
        Already have an account? <Link to="/sign-in">Sign in</Link>
      </p>
    </>
  );
}

export function ForgotPasswordPage() {
  usePageTitle("Forgot password");
  const request = $api.useMutation("post", "/auth/forgot-password");
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    request.mutate({ body: { email: String(new FormData(e.currentTarget).get("email")) } });
  };
  return (
    <>
      <h1>Forgot your password?</h1>
      {request.isSuccess ? (
        <p role="status">If that address has an account, a reset link has been sent. The link works for one hour.</p>
      ) : (
        <form onSubmit={submit} className="stack">
          <label>
            Email
            <input name="email" type="email" autoComplete="username" required />
          </label>
          <ErrorNote error={request.error} />
          <button type="submit" disabled={request.isPending}>
            Send reset link
          </button>
        </form>
      )}
      <p>
        <Link to="/sign-in">Back to sign in</Link>
      </p>
    </>
  );
}

export function ResetPasswordPage() {
  usePageTitle("Reset password");
  const [params] = useSearchParams();
  const token = params.get("token") ?? "";
  const reset = $api.useMutation("post", "/auth/reset-password");
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    reset.mutate({ body: { token, password: String(new FormData(e.currentTarget).get("password")) } });
  };
  return (
    <>
      <h1>Choose a new password</h1>
      {reset.isSuccess ? (
        <p role="status">
          Your password has been reset. <Link to="/sign-in">Sign in</Link> with the new one.
        </p>
      ) : !token ? (
        <p role="alert" className="error">
          This page needs the link from the reset email. <Link to="/forgot-password">Ask for a new link</Link>.
        </p>
      ) : (
        <form onSubmit={submit} className="stack">
          <label>
            New password
            <input name="password" type="password" autoComplete="new-password" required minLength={8} />
          </label>
          {reset.error ? (
            <p role="alert" className="error">
              {errorText(reset.error)}
            </p>
          ) : null}
          <button type="submit" disabled={reset.isPending}>
            Set new password
          </button>
        </form>
      )}
    </>
  );
}
