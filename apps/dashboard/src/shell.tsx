import { Link, type LinkProps, Outlet } from '@tanstack/react-router';
import type { Mode } from './auth/oauth';
import { type Role, useSession } from './auth/session';

interface NavItem {
  to: LinkProps['to'];
  label: string;
  /** Who sees it: admins manage the organisation, analysts and judges see their own work. */
  role: Role;
}

interface NavGroup {
  label: string;
  items: NavItem[];
}

const NAVIGATION: NavGroup[] = [
  {
    label: 'Developers',
    items: [
      { to: '/', label: 'Overview', role: 'admin' },
      { to: '/api-keys', label: 'API keys', role: 'admin' },
      { to: '/webhooks', label: 'Webhooks', role: 'admin' },
    ],
  },
  {
    label: 'Work',
    items: [
      { to: '/sessions', label: 'Sessions', role: 'admin' },
      { to: '/analyses', label: 'Analyses', role: 'admin' },
      { to: '/dowsing', label: 'Dowsing queries', role: 'admin' },
    ],
  },
  {
    label: 'History',
    items: [
      { to: '/history', label: 'Search', role: 'admin' },
      { to: '/history/import', label: 'Import', role: 'admin' },
      { to: '/reports', label: 'Reports', role: 'admin' },
    ],
  },
  {
    label: 'Organisation',
    items: [
      { to: '/organisation/members', label: 'Members', role: 'admin' },
      { to: '/organisation/sso', label: 'Single sign-on', role: 'admin' },
      { to: '/organisation/audit-log', label: 'Audit log', role: 'admin' },
      { to: '/organisation/targets', label: 'Target pool', role: 'admin' },
    ],
  },
  {
    label: 'My work',
    items: [
      { to: '/assignments', label: 'Assignments', role: 'analyst' },
      { to: '/judging', label: 'Judging', role: 'judge' },
    ],
  },
];

/** The frame of every page: header (mode switch, user menu), navigation, main. */
export function Shell() {
  const { tokens, profile, can, switchMode, signOut } = useSession();
  const test = tokens.mode === 'test';
  const groups = NAVIGATION.map((group) => ({
    ...group,
    items: group.items.filter((item) => can(item.role)),
  })).filter((group) => group.items.length > 0);
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
            <dt>Signed in as</dt>
            <dd>{profile.name}</dd>
            <dd>{profile.email ?? profile.user_id}</dd>
            <dt>Roles</dt>
            <dd>{profile.roles.join(', ')}</dd>
            <dt>Organisation</dt>
            <dd>{profile.organization_id}</dd>
          </dl>
          <button type="button" onClick={() => void signOut()}>
            Sign out
          </button>
        </details>
      </header>
      <nav aria-label="Main" className="nav">
        {groups.map((group) => (
          <div key={group.label}>
            <h2 className="nav-group">{group.label}</h2>
            <ul>
              {group.items.map((item) => (
                <li key={item.label}>
                  <Link
                    to={item.to}
                    activeOptions={{ exact: item.to === '/' || item.to === '/history' }}
                  >
                    {item.label}
                  </Link>
                </li>
              ))}
            </ul>
          </div>
        ))}
      </nav>
      <main id="main" className="main" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}
