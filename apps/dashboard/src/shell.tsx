import { Link, Outlet } from '@tanstack/react-router';
import { claimsOf, type Mode } from './auth/oauth';
import { useSession } from './auth/session';

/** The frame of every page: header (mode switch, user menu), navigation, main. */
export function Shell() {
  const { tokens, switchMode, signOut } = useSession();
  const test = tokens.mode === 'test';
  const claims = claimsOf(tokens.accessToken);
  return (
    <div className={test ? 'app test-mode' : 'app'}>
      <a className="skip" href="#main">
        Skip to content
      </a>
      {test && (
        <div className="test-banner" role="status">
          Test mode: you are seeing test data
        </div>
      )}
      <header className="header">
        <span className="brand">Session and Analysis Service</span>
        <fieldset className="mode-switch">
          <legend>Mode</legend>
          {(['live', 'test'] as Mode[]).map((mode) => (
            <label key={mode}>
              <input
                type="radio"
                name="mode"
                value={mode}
                checked={tokens.mode === mode}
                onChange={() => switchMode(mode)}
              />
              {mode === 'live' ? 'Live' : 'Test'}
            </label>
          ))}
        </fieldset>
        <details className="user-menu">
          <summary>Account</summary>
          <dl>
            <dt>User</dt>
            <dd>{claims.sub ?? 'unknown'}</dd>
            <dt>Organisation</dt>
            <dd>{claims.org_id ?? 'unknown'}</dd>
          </dl>
          <button type="button" onClick={() => void signOut()}>
            Sign out
          </button>
        </details>
      </header>
      <nav aria-label="Main" className="nav">
        <ul>
          <li>
            <Link to="/" activeOptions={{ exact: true }}>
              Overview
            </Link>
          </li>
          <li>
            <Link to="/api-keys">API keys</Link>
          </li>
          <li>
            <Link to="/webhooks">Webhooks</Link>
          </li>
        </ul>
      </nav>
      <main id="main" className="main" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}
