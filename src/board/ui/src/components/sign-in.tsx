import { useEffect, useRef, useState } from 'preact/hooks';
import { useI18n } from '../hooks.js';

/** Why the sign-in form is shown again. */
export type SignInProblem =
  | { kind: 'wrong' }
  | { kind: 'signed-out' }
  | { kind: 'refused'; detail: string };

/** The small form that asks for the board token when the page was opened without one. */
export function SignIn(props: { problem: SignInProblem | null; onSubmit(token: string): void }) {
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
      <form
        class="sign-in-form"
        aria-labelledby="sign-in-heading"
        onSubmit={(e) => {
          e.preventDefault();
          const token = value.trim();
          if (token !== '') props.onSubmit(token);
        }}
      >
        <h1 id="sign-in-heading">
          <span class="logo" aria-hidden="true" />
          {t('app.title')}
        </h1>
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
        {props.problem?.kind === 'signed-out' ? <p role="status">{t('signin.signedOut')}</p> : null}
        <button type="submit" class="primary">
          {t('signin.submit')}
        </button>
      </form>
    </main>
  );
}
