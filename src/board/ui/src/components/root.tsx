import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { Catalogue } from '../api/types.js';
import { checkSession, type Me } from '../auth/me.js';
import { signOutSession } from '../auth/sign-in-calls.js';
import { SignUp, takeSignupLink } from '../auth/signup.js';
import { I18nContext } from '../hooks.js';
import { createI18n, ENGLISH } from '../i18n/i18n.js';
import { useAccountRoute, useCheckRoute, useMachineRoute } from '../state/route.js';
import { KEYS, localStore, tabStore } from '../storage.js';
import { AccountPage } from './account-page.js';
import { BoardPage } from './board-page.js';
import { CheckPage } from './check-page.js';
import { MachinePage } from './machine-page.js';
import { SignIn, type SignInProblem } from './sign-in.js';

/** The catalogue used last, so the sign-in page (before any /api call) speaks that language. */
function cachedCatalogue(): Catalogue | null {
  const text = localStore.get(KEYS.catalogue);
  if (text === null) return null;
  try {
    const c = JSON.parse(text) as unknown;
    if (typeof c !== 'object' || c === null) return null;
    const { code, name, messages } = c as Record<string, unknown>;
    if (typeof code !== 'string' || typeof messages !== 'object' || messages === null) return null;
    const strings: Record<string, string> = {};
    for (const [k, v] of Object.entries(messages)) if (typeof v === 'string') strings[k] = v;
    return { code, name: typeof name === 'string' ? name : code, messages: strings };
  } catch {
    return null;
  }
}

/** Sign-in or the board, in the chosen language. */
export function Root() {
  const [token, setToken] = useState(() => tabStore.get(KEYS.token));
  // A one-time sign-up link (#signup=…) opens its own page, whoever is signed in.
  const [signup] = useState(takeSignupLink);
  // A cookie session: who it is, null (nobody: the sign-in page), or still being asked.
  const [session, setSession] = useState<Me | null | 'asking'>(() =>
    tabStore.get(KEYS.token) === null && signup === null ? 'asking' : null,
  );
  const [problem, setProblem] = useState<SignInProblem | null>(null);
  const [catalogue, setCatalogue] = useState<Catalogue>(
    () => cachedCatalogue() ?? { code: 'en', name: 'English', messages: ENGLISH },
  );
  const [i18n, setI18n] = useState(() => createI18n(catalogue.code, catalogue.messages));
  const machine = useMachineRoute();
  const account = useAccountRoute();
  const check = useCheckRoute();

  /** Asks the board, with the cookie alone, whether this browser is signed in. */
  const askSession = useCallback(() => {
    void checkSession().then((c) => {
      if (c.kind === 'in') {
        setProblem(null);
        setSession(c.me);
        return;
      }
      setSession(null);
      if (c.kind === 'wait') setProblem({ kind: 'refused', detail: c.detail });
    });
  }, []);
  useEffect(() => {
    if (session === 'asking') askSession();
  }, [session, askSession]);

  useEffect(() => {
    setI18n(createI18n(catalogue.code, catalogue.messages));
    document.documentElement.lang = catalogue.code;
  }, [catalogue]);

  const signIn = useCallback((value: string) => {
    tabStore.set(KEYS.token, value);
    setProblem(null);
    setToken(value);
  }, []);
  // The token in use, for sign-outs that answer a token no longer in use (see signOut).
  const current = useRef(token);
  current.current = token;
  /**
   * Back to the form. `from`: the token that was refused. A page signed in with a wrong token
   * may still have requests under way when the right one is entered; their late 401 must not
   * sign out the right one (seen as a flaky test under load).
   */
  const signOut = useCallback((why: SignInProblem | null, from?: string | null) => {
    if (from !== undefined && from !== current.current) return;
    if (current.current === null) {
      // A cookie session: a sign-out by hand ends it on the board (and the provider's, if any).
      if (why?.kind === 'signed-out') {
        void signOutSession().then((providerUrl) => {
          if (providerUrl !== null) window.location.assign(providerUrl);
          else {
            setProblem({ kind: 'session-out' });
            setSession(null);
          }
        });
        return;
      }
      setProblem(why?.kind === 'wrong' ? { kind: 'ended' } : why);
      setSession(null);
      return;
    }
    tabStore.set(KEYS.token, null);
    setProblem(why);
    setToken(null);
  }, []);
  const adoptCatalogue = useCallback((c: Catalogue) => {
    localStore.set(KEYS.catalogue, JSON.stringify(c));
    setCatalogue(c);
  }, []);

  // Who a cookie session is (a token's person is asked by the page, once the board took it).
  const known = token === null && session !== 'asking' ? session : null;

  return (
    <I18nContext.Provider value={i18n}>
      {signup !== null ? (
        <SignUp link={signup} />
      ) : token === null && session === 'asking' ? (
        <main class="sign-in" aria-busy="true" />
      ) : token === null && session === null ? (
        <SignIn problem={problem} onSubmit={signIn} onSession={() => setSession('asking')} />
      ) : account !== null ? (
        <AccountPage
          key={`${token}/${account}`}
          token={token}
          me={known}
          page={account}
          onSignOut={signOut}
          onCatalogue={adoptCatalogue}
        />
      ) : check !== null ? (
        <CheckPage
          key={`${token}/check/${check}`}
          token={token}
          me={known}
          name={check}
          onSignOut={signOut}
          onCatalogue={adoptCatalogue}
        />
      ) : machine !== null ? (
        <MachinePage
          key={`${token}/${machine}`}
          token={token}
          me={known}
          name={machine}
          onSignOut={signOut}
          onCatalogue={adoptCatalogue}
        />
      ) : (
        <BoardPage
          key={token ?? 'session'}
          token={token}
          me={known}
          onSignOut={signOut}
          onCatalogue={adoptCatalogue}
        />
      )}
    </I18nContext.Provider>
  );
}
