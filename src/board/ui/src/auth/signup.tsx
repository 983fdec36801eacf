import { useEffect, useState } from 'preact/hooks';
import { useI18n } from '../hooks.js';
import { passkeysHere, readLink, signUpWithPasskey, signUpWithPassword } from './local-sign-in.js';

const SIGNUP = /^#signup=([A-Za-z0-9_-]{20,100})$/;

/**
 * The secret of a one-time link in the address (`#signup=…`), or null. Taken off the address
 * bar and the tab's history at once, as the board token is.
 */
export function takeSignupLink(): string | null {
  const match = SIGNUP.exec(window.location.hash);
  if (match === null) return null;
  history.replaceState(null, '', window.location.pathname + window.location.search);
  return match[1] ?? null;
}

type Stage =
  | { kind: 'checking' }
  | { kind: 'invalid' }
  | { kind: 'choose'; name: string; expiresAt: string }
  | { kind: 'done'; name: string };

/** The page a one-time link opens: register a passkey or set a password, then signed in. */
export function SignUp(props: { link: string }) {
  const { t, time } = useI18n();
  const [stage, setStage] = useState<Stage>({ kind: 'checking' });
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    document.title = t('app.title');
  }, [t]);
  // Asked once per link (not again when the language arrives).
  useEffect(() => {
    void readLink(props.link).then((r) =>
      setStage(
        r.ok ? { kind: 'choose', name: r.name, expiresAt: r.expiresAt } : { kind: 'invalid' },
      ),
    );
  }, [props.link]);

  const finish = async (
    attempt: Promise<{ ok: true; name: string } | { ok: false; detail: string }>,
  ) => {
    setBusy(true);
    setProblem(null);
    const r = await attempt;
    setBusy(false);
    if (r.ok) setStage({ kind: 'done', name: r.name });
    else setProblem(t('signup.failed', { detail: r.detail }));
  };

  return (
    <main class="sign-in">
      <div class="sign-in-form" data-testid="signup">
        <h1>
          <span class="logo" aria-hidden="true" />
          {t('app.title')}
        </h1>
        {stage.kind === 'checking' ? <p role="status">{t('signup.checking')}</p> : null}
        {stage.kind === 'invalid' ? (
          <p class="problem" role="alert">
            {t('signup.invalid')}
          </p>
        ) : null}
        {stage.kind === 'done' ? (
          <>
            <p role="status" data-testid="signup-done">
              {t('signup.done', { name: stage.name })}
            </p>
            <a class="button" href="/">
              {t('signup.open')}
            </a>
          </>
        ) : null}
        {stage.kind === 'choose' ? (
          <>
            <h2>{t('signup.welcome', { name: stage.name })}</h2>
            <p>{t('signup.intro', { until: time(Date.parse(stage.expiresAt)) })}</p>
            {passkeysHere() ? (
              <>
                <button
                  type="button"
                  disabled={busy}
                  onClick={() => void finish(signUpWithPasskey(props.link))}
                >
                  {t('signup.passkey')}
                </button>
                <p class="hint">{t('signup.passkeyHelp')}</p>
              </>
            ) : (
              <p class="hint">{t('signup.noPasskey')}</p>
            )}
            <form
              onSubmit={(e) => {
                e.preventDefault();
                if ([...password].length < 12) setProblem(t('signup.tooShort'));
                else if (password !== confirm) setProblem(t('signup.mismatch'));
                else void finish(signUpWithPassword(props.link, password));
              }}
            >
              <h2>{t('signup.or')}</h2>
              <label for="signup-password">{t('signup.password')}</label>
              <input
                id="signup-password"
                type="password"
                autocomplete="new-password"
                minLength={12}
                maxLength={1024}
                required
                value={password}
                onInput={(e) => setPassword(e.currentTarget.value)}
              />
              <label for="signup-confirm">{t('signup.confirm')}</label>
              <input
                id="signup-confirm"
                type="password"
                autocomplete="new-password"
                required
                value={confirm}
                onInput={(e) => setConfirm(e.currentTarget.value)}
              />
              <button type="submit" disabled={busy}>
                {t('signup.setPassword')}
              </button>
            </form>
          </>
        ) : null}
        {problem !== null ? (
          <p class="problem" role="alert">
            {problem}
          </p>
        ) : null}
      </div>
    </main>
  );
}
