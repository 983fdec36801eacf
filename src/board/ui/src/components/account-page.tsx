import { useEffect, useMemo, useState } from 'preact/hooks';
import { accountsApi } from '../api/accounts.js';
import { createApi } from '../api/client.js';
import type { Catalogue } from '../api/types.js';
import { CanContext, canOf, EVERYTHING } from '../auth/can.js';
import type { Me } from '../auth/me.js';
import { useI18n } from '../hooks.js';
import { useLanguages } from '../state/languages.js';
import { useProblemText } from '../state/problem-text.js';
import { type AccountRoute, followLink } from '../state/route.js';
import { PeoplePanel } from './people-page.js';
import type { SignInProblem } from './sign-in.js';
import { TokensPanel } from './tokens-page.js';
import { TopBar } from './top-bar.js';

/** The People page (admins) or the Tokens page (everyone's own), under the top bar. */
export function AccountPage(props: {
  token: string | null;
  me: Me | null;
  page: AccountRoute;
  onSignOut(why: SignInProblem | null, from?: string | null): void;
  onCatalogue(catalogue: Catalogue): void;
}) {
  const { t } = useI18n();
  const { onSignOut } = props;
  const api = useMemo(
    () => createApi(props.token, () => onSignOut({ kind: 'wrong' }, props.token)),
    [props.token, onSignOut],
  );
  // With a token, /api/me is the first request (it proves the token); nothing else goes first.
  const [me, setMe] = useState<Me | null | 'asking'>(props.me ?? 'asking');
  useEffect(() => {
    if (props.me !== null) return;
    let live = true;
    api.me().then(
      (m) => {
        if (live) setMe(m);
      },
      () => {
        if (live) setMe(null);
      },
    );
    return () => {
      live = false;
    };
  }, [api, props.me]);
  const ready = me !== 'asking';
  const person = me === 'asking' ? null : me;
  const can = useMemo(() => (person === null ? EVERYTHING : canOf(person.bindings)), [person]);
  const { languages, choose } = useLanguages(api, props.onCatalogue);
  const problemText = useProblemText(t);
  const accounts = useMemo(() => accountsApi(api), [api]);
  const title = t(props.page === 'people' ? 'people.heading' : 'tokens.heading');
  useEffect(() => {
    document.title = `${title} · ${t('app.title')}`;
  }, [title, t]);

  return (
    <CanContext.Provider value={can}>
      <TopBar
        languages={languages}
        onLanguage={choose}
        onSignOut={() => onSignOut({ kind: 'signed-out' })}
        home={{ href: './', onClick: (e) => followLink(e, './') }}
        account={{ name: person?.name ?? null, people: can.managePeople() }}
      />
      <main class="account-page" aria-label={title}>
        <p>
          <a href="./" class="back-link" onClick={(e) => followLink(e, './')}>
            ← {t('history.back')}
          </a>
        </p>
        {!ready ? null : props.page === 'tokens' ? (
          <TokensPanel accounts={accounts} problemText={problemText} />
        ) : can.managePeople() ? (
          <PeoplePanel accounts={accounts} problemText={problemText} />
        ) : (
          <p class="problem" role="alert">
            {t('people.notYours')}
          </p>
        )}
      </main>
    </CanContext.Provider>
  );
}
