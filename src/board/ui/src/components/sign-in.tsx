import { useEffect, useRef, useState } from 'preact/hooks';
import { useI18n } from '../hooks.js';
import { SignInMethods } from './sign-in-methods.js';

/** Why the sign-in form is shown again. */
export type SignInProblem =
  | { kind: 'wrong' }
  | { kind: 'signed-out' }
  /** A cookie session ended by hand (Sign out). */
  | { kind: 'session-out' }
  /** A cookie session the board no longer accepts (ended, expired, or the person removed). */
  | { kind: 'ended' }
  | { kind: 'refused'; detail: string };

/**
 * The sign-in page: the person's ways in (provider, passkey, password) and the small form that
 * asks for the board token (or an API token).
 */
export function SignIn(props: {
  problem: SignInProblem | null;
  onSubmit(token: string): void;
  onSession(): void;
}) {
  const { t } = useI18n();
  const [value, setValue] = useState('');
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    input.current?.focus();
    document.title = t('app.title');
  }, [t]);
  const wrong = props.problem?.kind === 'wrong';
  return (
    <main class="sign-in">
      <div class="sign-in-box">
        <h1 id="sign-in-heading">
          <span class="logo" aria-hidden="true" />
          {t('app.title')}
        </h1>
        {props.problem?.kind === 'signed-out' ? <p role="status">{t('signin.signedOut')}</p> : null}
        {props.problem?.kind === 'session-out' ? (
          <p role="status">{t('signin.sessionOut')}</p>
        ) : null}
        {props.problem?.kind === 'ended' ? (
          <p class="problem" role="alert">
            {t('signin.ended')}
          </p>
        ) : null}
        <SignInMethods onSession={props.onSession} />
        <form
          class="sign-in-form"
          aria-labelledby="sign-in-heading"
          onSubmit={(e) => {
            e.preventDefault();
            const token = value.trim();
            if (token !== '') props.onSubmit(token);
          }}
        >
          <p>{t('signin.help')}</p>
          <label for="token">{t('signin.label')}</label>
          <input
            id="token"
            ref={input}
            type="password"
            name="token"
            autocomplete="off"
            spellcheck={false}
            required
            aria-invalid={wrong}
            aria-describedby={wrong ? 'sign-in-problem' : undefined}
            value={value}
            onInput={(e) => setValue(e.currentTarget.value)}
          />
          {wrong ? (
            <p id="sign-in-problem" class="problem" role="alert">
              {t('signin.wrong')}
            </p>
          ) : null}
          {props.problem?.kind === 'refused' ? (
            <p class="problem" role="alert">
              {t('signin.refused', { detail: props.problem.detail })}
            </p>
          ) : null}
          <button type="submit" class="primary">
            {t('signin.submit')}
          </button>
        </form>
      </div>
    </main>
  );
}
