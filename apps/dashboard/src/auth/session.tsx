import { Client, type Profile } from '@sas/sdk';
import { useQuery } from '@tanstack/react-query';
import {
  createContext,
  type ReactNode,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
} from 'react';
import { ApiError } from '../api-error';
import {
  beginSignIn,
  CALLBACK_PATH,
  claimsOf,
  completeSignIn,
  type Mode,
  refreshTokens,
  revoke,
  type Tokens,
} from './oauth';

/** Renew this long before the access token expires. */
const REFRESH_MARGIN_MS = 60_000;
const MODE_KEY = 'sas.dashboard.mode';

type State =
  | { status: 'signing-in' }
  | { status: 'signed-in'; tokens: Tokens }
  | { status: 'signed-out' }
  | { status: 'failed'; message: string };

export type Role = Profile['roles'][number];

export interface Session {
  tokens: Tokens;
  client: Client;
  /** The person signed in: name, email, organisation and roles (what the navigation offers). */
  profile: Profile;
  /** Whether the person has this role. */
  can(role: Role): boolean;
  switchMode(mode: Mode): void;
  signOut(): Promise<void>;
}

const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in page');
  return session;
}

function preferredMode(): Mode {
  return sessionStorage.getItem(MODE_KEY) === 'test' ? 'test' : 'live';
}

/** Signs in on load (the authorization server remembers the browser), keeps the tokens fresh. */
export function SessionProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<State>({ status: 'signing-in' });
  const started = useRef(false);

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    const url = new URL(location.href);
    if (url.pathname === CALLBACK_PATH) {
      completeSignIn(url)
        .then(({ tokens, returnTo }) => {
          history.replaceState(null, '', returnTo);
          setState({ status: 'signed-in', tokens });
        })
        .catch((error: Error) => setState({ status: 'failed', message: error.message }));
    } else {
      void beginSignIn(preferredMode(), url.pathname + url.search);
    }
  }, []);

  const tokens = state.status === 'signed-in' ? state.tokens : null;

  // The refresh token rotates: each refresh spends it and brings the next one.
  useEffect(() => {
    if (!tokens?.refreshToken) return;
    const refreshToken = tokens.refreshToken;
    const delay = Math.max(0, tokens.expiresAt - Date.now() - REFRESH_MARGIN_MS);
    const timer = setTimeout(() => {
      refreshTokens(tokens.mode, refreshToken)
        .then((next) => setState({ status: 'signed-in', tokens: next }))
        .catch(() => void beginSignIn(tokens.mode, location.pathname + location.search));
    }, delay);
    return () => clearTimeout(timer);
  }, [tokens]);

  const switchMode = useCallback((mode: Mode) => {
    sessionStorage.setItem(MODE_KEY, mode);
    setState({ status: 'signing-in' });
    void beginSignIn(mode, location.pathname + location.search);
  }, []);

  const signOut = useCallback(async () => {
    if (tokens?.refreshToken) await revoke(tokens.mode, tokens.refreshToken);
    setState({ status: 'signed-out' });
  }, [tokens]);

  const client = useMemo(
    () =>
      tokens ? new Client({ baseUrl: location.origin, accessToken: tokens.accessToken }) : null,
    [tokens],
  );

  if (state.status === 'signed-out') {
    return (
      <Notice title="You are signed out">
        <button
          type="button"
          onClick={() => void beginSignIn(preferredMode(), '/dashboard/', true)}
        >
          Sign in again
        </button>
      </Notice>
    );
  }
  if (state.status === 'failed') {
    return (
      <Notice title="Signing in failed">
        <p role="alert">{state.message}</p>
        <button type="button" onClick={() => void beginSignIn(preferredMode(), '/dashboard/')}>
          Try again
        </button>
      </Notice>
    );
  }
  if (!tokens || !client) return <Notice title="Signing in…" />;
  return (
    <SignedIn tokens={tokens} client={client} switchMode={switchMode} signOut={signOut}>
      {children}
    </SignedIn>
  );
}

/** Reads who signed in (their roles decide the pages) before showing any page. */
function SignedIn({
  children,
  ...session
}: Omit<Session, 'profile' | 'can'> & { children: ReactNode }) {
  const profile = useQuery({
    // The person, not the token: a refreshed token must not read it again (nor blank the page).
    queryKey: ['profile', session.tokens.mode, claimsOf(session.tokens.accessToken).sub],
    queryFn: () => session.client.profile.get(),
    staleTime: Infinity,
  });
  const value = useMemo(
    () =>
      profile.data
        ? {
            ...session,
            profile: profile.data,
            can: (role: Role) => profile.data.roles.includes(role),
          }
        : null,
    [profile.data, session.tokens, session.client],
  );
  if (profile.isError) {
    return (
      <Notice title="Your account could not be read">
        <ApiError error={profile.error} />
        <button type="button" onClick={() => void session.signOut()}>
          Sign out
        </button>
      </Notice>
    );
  }
  if (!value) return <Notice title="Signing in…" />;
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

function Notice({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <main className="notice">
      <h1>{title}</h1>
      {children}
    </main>
  );
}
