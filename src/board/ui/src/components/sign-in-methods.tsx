import { useEffect, useState } from 'preact/hooks';
import {
  type LocalResult,
  passkeysHere,
  signInWithPasskey,
  signInWithPassword,
} from '../auth/local-sign-in.js';
import { type Methods, providerHref, signInMethods } from '../auth/sign-in-calls.js';
import { useI18n } from '../hooks.js';

/**
 * The person's ways in (GET /auth/methods): the identity provider's button, a passkey, a
 * password. Each success leaves a session cookie; `onSession` then asks who signed in.
 */
export function SignInMethods(props: { onSession(): void }) {
  const { t } = useI18n();
  const [methods, setMethods] = useState<Methods | null>(null);
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    void signInMethods().then((m) => {
      if (live) setMethods(m);
    });
    return () => {
      live = false;
    };
  }, []);
  if (methods === null) return null;

  const run = async (attempt: () => Promise<LocalResult>) => {
    setBusy(true);
    setProblem(null);
    try {
      const a = await attempt();
      if (a.ok) {
        props.onSession();
        return;
      }
      setProblem(a.status === 429 ? t('signin.wait', { detail: a.detail }) : a.detail);
    } catch (error) {
      // The browser's own refusal (cancelled, no passkey here): its message, as given.
      setProblem(error instanceof Error ? error.message : String(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="sign-in-methods" aria-label={t('signin.person')}>
      {methods.oidc === null ? null : (
        <a class="button primary provider" href={providerHref()} data-testid="provider-sign-in">
          {t('signin.provider', { name: methods.oidc.name })}
        </a>
      )}
      {methods.passkey && passkeysHere() ? (
        <button
          type="button"
          class="passkey"
          disabled={busy}
          onClick={() => void run(signInWithPasskey)}
        >
          {t('signin.passkey')}
        </button>
      ) : null}
      {methods.password ? (
        <form
          class="password-form"
          aria-label={t('signin.passwordHeading')}
          onSubmit={(e) => {
            e.preventDefault();
            if (name.trim() === '' || password === '') return;
            void run(() => signInWithPassword(name.trim(), password));
          }}
        >
          <label for="person-name">{t('signin.name')}</label>
          <input
            id="person-name"
            name="username"
            autocomplete="username"
            spellcheck={false}
            required
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
          <label for="person-password">{t('signin.password')}</label>
          <input
            id="person-password"
            type="password"
            name="password"
            autocomplete="current-password"
            required
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
          <button type="submit" disabled={busy}>
            {t('signin.continue')}
          </button>
        </form>
      ) : null}
      {problem === null ? null : (
        <p class="problem" role="alert" data-testid="person-sign-in-problem">
          {problem}
        </p>
      )}
      {methods.boardToken ? <p class="or">{t('signin.or')}</p> : null}
    </section>
  );
}
