import { useCallback, useEffect, useState } from 'preact/hooks';
import type { Api } from '../api/client.js';
import type { Catalogue, LanguageInfo } from '../api/types.js';
import { chooseLanguage } from '../i18n/i18n.js';
import { KEYS, localStore } from '../storage.js';

/**
 * The board's languages for the top bar's picker, and a choice by hand (kept for next time).
 * Loads the catalogue to use (the stored choice, else the browser's, else English) once.
 */
export function useLanguages(
  api: Api,
  onCatalogue: (catalogue: Catalogue) => void,
): { languages: readonly LanguageInfo[]; choose(code: string): void } {
  const [languages, setLanguages] = useState<readonly LanguageInfo[]>([]);
  useEffect(() => {
    let cancelled = false;
    const load = async () => {
      const list = await api.languages();
      if (cancelled) return;
      setLanguages(list);
      const code = chooseLanguage(list, localStore.get(KEYS.language), navigator.languages);
      const catalogue = await api.language(code);
      if (!cancelled) onCatalogue(catalogue);
    };
    load().catch(() => undefined); // English stays: the board is usable without a catalogue
    return () => {
      cancelled = true;
    };
  }, [api, onCatalogue]);
  const choose = useCallback(
    (code: string) => {
      localStore.set(KEYS.language, code);
      api.language(code).then(onCatalogue, () => undefined);
    },
    [api, onCatalogue],
  );
  return { languages, choose };
}
