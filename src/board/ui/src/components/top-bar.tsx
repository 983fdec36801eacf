import { useState } from 'preact/hooks';
import type { LiveStatus } from '../api/live.js';
import type { LanguageInfo } from '../api/types.js';
import { useI18n } from '../hooks.js';
import type { MessageKey } from '../i18n/i18n.js';
import { followLink } from '../state/route.js';
import { applyTheme, nextTheme, storedTheme, type Theme } from '../theme.js';

const STATUS_TEXT: Record<LiveStatus, MessageKey> = {
  connecting: 'conn.connecting',
  live: 'conn.live',
  reconnecting: 'conn.reconnecting',
};

const THEME_TEXT: Record<Theme, MessageKey> = {
  system: 'theme.system',
  light: 'theme.light',
  dark: 'theme.dark',
};

export interface TopBarProps {
  /** The live feed's state (absent on a page without one). */
  status?: LiveStatus;
  languages: readonly LanguageInfo[];
  /** The journal's toggle (absent on a page without the journal). */
  journal?: { open: boolean; onToggle(): void };
  onLanguage(code: string): void;
  onSignOut(): void;
  /** Set on other pages than the board: the title is a link back to it. */
  home?: { href: string; onClick(event: MouseEvent): void };
  /** Who is signed in (null until known) and whether the People page is theirs to see. */
  account?: { name: string | null; people: boolean };
}

/** Title, connection state, and the page's settings. */
export function TopBar(props: TopBarProps) {
  const { t, code } = useI18n();
  const [theme, setTheme] = useState<Theme>(storedTheme);
  const themeName = t(THEME_TEXT[theme]);
  const known = props.languages.some((l) => l.code === code);
  return (
    <header class="top-bar">
      {props.home === undefined ? (
        <h1>
          <span class="logo" aria-hidden="true" />
          {t('app.title')}
        </h1>
      ) : (
        <p class="app-title">
          <a href={props.home.href} onClick={props.home.onClick}>
            <span class="logo" aria-hidden="true" />
            {t('app.title')}
          </a>
        </p>
      )}
      {props.status === undefined ? null : (
        <p class={`connection ${props.status}`} role="status" data-status={props.status}>
          <span class="dot" aria-hidden="true" />
          {t(STATUS_TEXT[props.status])}
        </p>
      )}
      <div class="settings">
        {props.journal === undefined ? null : (
          <button
            type="button"
            aria-expanded={props.journal.open}
            aria-controls="journal"
            onClick={props.journal.onToggle}
          >
            {t(props.journal.open ? 'journal.hide' : 'journal.show')}
          </button>
        )}
        <label class="language">
          <span class="visually-hidden">{t('settings.language')}</span>
          <select
            aria-label={t('settings.language')}
            value={code}
            onChange={(e) => props.onLanguage(e.currentTarget.value)}
          >
            {known ? null : (
              <option value={code} translate={false}>
                {code}
              </option>
            )}
            {props.languages.map((l) => (
              <option key={l.code} value={l.code} lang={l.code} translate={false}>
                {l.name}
              </option>
            ))}
          </select>
        </label>
        <button
          type="button"
          class="theme-toggle"
          aria-label={t('theme.toggle', { theme: themeName })}
          onClick={() => {
            const next = nextTheme(theme);
            applyTheme(next, true);
            setTheme(next);
          }}
        >
          <span aria-hidden="true" class="theme-icon" />
          <span class="theme-name">{themeName}</span>
        </button>
        {props.account === undefined ? null : (
          <nav class="account" aria-label={t('account.nav')}>
            {props.account.name === null ? null : (
              <span class="signed-in-as" data-testid="signed-in-as" translate={false}>
                {props.account.name}
              </span>
            )}
            {props.account.people ? (
              <a href="?page=people" onClick={(e) => followLink(e, '?page=people')}>
                {t('account.people')}
              </a>
            ) : null}
            <a href="?page=tokens" onClick={(e) => followLink(e, '?page=tokens')}>
              {t('account.tokens')}
            </a>
          </nav>
        )}
        <button type="button" onClick={props.onSignOut}>
          {t('settings.signOut')}
        </button>
      </div>
    </header>
  );
}
