import { KEYS, localStore } from './storage.js';

export const THEMES = ['system', 'light', 'dark'] as const;
export type Theme = (typeof THEMES)[number];

/** The stored theme choice; 'system' follows prefers-color-scheme. */
export function storedTheme(): Theme {
  const v = localStore.get(KEYS.theme);
  return THEMES.find((t) => t === v) ?? 'system';
}

/** Applies and stores a theme choice: CSS reads `data-theme` on the root element. */
export function applyTheme(theme: Theme, store = false): void {
  const root = document.documentElement;
  if (theme === 'system') delete root.dataset.theme;
  else root.dataset.theme = theme;
  if (store) localStore.set(KEYS.theme, theme === 'system' ? null : theme);
}

/** The next choice of the theme toggle: system → light → dark → system. */
export function nextTheme(theme: Theme): Theme {
  return THEMES[(THEMES.indexOf(theme) + 1) % THEMES.length] ?? 'system';
}
