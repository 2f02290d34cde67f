import { Link, type LinkProps, Outlet } from '@tanstack/react-router';
import { type KeyboardEvent, type RefObject, useEffect, useRef, useState } from 'react';
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

/**
 * A table wider than the page scrolls sideways in its own box (styles.css). Such a table takes
 * the keyboard focus, so the arrow keys can scroll it too (Chrome and Firefox let any scroller
 * take it, Safari does not), and leaves the tab order again once it fits: on every change of
 * the page's content or width.
 */
function useScrollingTablesFocusable(main: RefObject<HTMLElement | null>) {
  useEffect(() => {
    const root = main.current;
    if (!root) return;
    const update = () => {
      for (const table of root.querySelectorAll('table')) {
        const scrolls = table.scrollWidth > table.clientWidth;
        if (scrolls && !table.hasAttribute('tabindex')) {
          table.tabIndex = 0;
          table.dataset.scrolls = '';
        } else if (!scrolls && table.dataset.scrolls !== undefined) {
          table.removeAttribute('tabindex');
          delete table.dataset.scrolls;
        }
      }
    };
    const resized = new ResizeObserver(update);
    resized.observe(root);
    const changed = new MutationObserver(update);
    changed.observe(root, { childList: true, subtree: true, characterData: true });
    update();
    return () => {
      resized.disconnect();
      changed.disconnect();
    };
  }, [main]);
}

/**
 * The frame of every page: header (mode switch, user menu), navigation, main. On a narrow
 * screen the navigation folds behind the Menu button (styles.css): a disclosure, closed again
 * by choosing a page or by Escape (which gives the focus back to the button).
 */
export function Shell() {
  const { tokens, profile, can, switchMode, signOut } = useSession();
  const [menuOpen, setMenuOpen] = useState(false);
  const menuButton = useRef<HTMLButtonElement>(null);
  const main = useRef<HTMLElement>(null);
  useScrollingTablesFocusable(main);
  const test = tokens.mode === 'test';
  const groups = NAVIGATION.map((group) => ({
    ...group,
    items: group.items.filter((item) => can(item.role)),
  })).filter((group) => group.items.length > 0);
  const closeOnEscape = (event: KeyboardEvent) => {
    if (event.key !== 'Escape' || !menuOpen) return;
    setMenuOpen(false);
    menuButton.current?.focus();
  };
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
        <button
          ref={menuButton}
          type="button"
          className="menu-button"
          aria-expanded={menuOpen}
          aria-controls="main-navigation"
          onClick={() => setMenuOpen(!menuOpen)}
          onKeyDown={closeOnEscape}
        >
          Menu
        </button>
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
      <nav
        id="main-navigation"
        aria-label="Main"
        className={menuOpen ? 'nav nav-open' : 'nav'}
        onKeyDown={closeOnEscape}
      >
        {groups.map((group) => (
          <div key={group.label}>
            <h2 className="nav-group">{group.label}</h2>
            <ul>
              {group.items.map((item) => (
                <li key={item.label}>
                  <Link
                    to={item.to}
                    activeOptions={{ exact: item.to === '/' || item.to === '/history' }}
                    onClick={() => setMenuOpen(false)}
                  >
                    {item.label}
                  </Link>
                </li>
              ))}
            </ul>
          </div>
        ))}
      </nav>
      <main ref={main} id="main" className="main" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}
