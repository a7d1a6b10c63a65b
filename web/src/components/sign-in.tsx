import { useEffect, useState } from 'preact/hooks';
import { ApiError, signIn } from '../api';
import { auth, errorText } from '../state';
import { CodeText } from './code-text';

/**
 * The sign-in screen: one password field for the gateway token, exchanged at `POST /api/session` for an
 * HttpOnly session cookie. The token is held in this component's state only until the request is sent and
 * never stored anywhere.
 */
export function SignIn() {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [waitUntil, setWaitUntil] = useState(0);
  const [now, setNow] = useState(Date.now());

  useEffect(() => {
    if (waitUntil <= now) return;
    const timer = setTimeout(() => setNow(Date.now()), 1000);
    return () => clearTimeout(timer);
  }, [waitUntil, now]);

  const waiting = Math.max(0, Math.ceil((waitUntil - now) / 1000));

  const submit = async (event: Event) => {
    event.preventDefault();
    if (!token.trim() || busy || waiting) return;
    setBusy(true);
    setError(null);
    try {
      await signIn(token.trim());
      setToken('');
      auth.value = 'signed-in';
    } catch (failure) {
      if (failure instanceof ApiError && failure.status === 401) {
        setError('That token is not right. Check it and try again.');
      } else if (failure instanceof ApiError && failure.status === 429) {
        const seconds = failure.retryAfter ?? 60;
        setWaitUntil(Date.now() + seconds * 1000);
        setNow(Date.now());
        setError('Too many attempts.');
      } else {
        setError(errorText(failure));
      }
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="signin">
      <form class="signin-card" onSubmit={submit}>
        <img src="/icon.svg" alt="" width="56" height="56" class="signin-mark" />
        <h1>Sign in to Wren</h1>
        <p class="muted">
          Paste the gateway token (printed when Wren first started; <code>wren token --rotate</code> makes a
          new one), or open the one-time link from <code>wren web open</code>. The token is not stored in the
          browser.
        </p>
        {/* Lets password managers file the token under a name; never shown. */}
        <input type="text" name="username" autoComplete="username" value="wren" hidden readOnly />
        <label for="signin-token" class="field-label">
          Gateway token
        </label>
        <input
          id="signin-token"
          type="password"
          autoComplete="current-password"
          value={token}
          onInput={(event) => setToken(event.currentTarget.value)}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? 'signin-error' : undefined}
          required
        />
        {error ? (
          <p id="signin-error" class="field-error" role="alert">
            <CodeText text={error} />
            {waiting ? ` Try again in ${waiting} s.` : ''}
          </p>
        ) : null}
        <button type="submit" class="btn primary block" disabled={busy || waiting > 0}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
