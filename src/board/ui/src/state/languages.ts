import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
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
  // Catalogues are asked for in turn (the one chosen at load, then each chosen by hand); only
  // the last asked for is shown, whatever order the answers come in: a slow answer for the
  // language chosen at load must not undo a choice made by hand meanwhile.
  const asked = useRef(0);
  /** Asks for `code`'s catalogue and shows it, unless another was asked for meanwhile. */
  const show = useCallback(
    async (code: string) => {
      const turn = ++asked.current;
      const catalogue = await api.language(code);
      if (turn === asked.current) onCatalogue(catalogue);
    },
    [api, onCatalogue],
  );
  useEffect(() => {
    let cancelled = false;
    const load = async () => {
      const list = await api.languages();
      if (cancelled) return;
      setLanguages(list);
      await show(chooseLanguage(list, localStore.get(KEYS.language), navigator.languages));
    };
    load().catch(() => undefined); // English stays: the board is usable without a catalogue
    return () => {
      cancelled = true;
      asked.current += 1; // an answer still on its way is not shown
    };
  }, [api, show]);
  const choose = useCallback(
    (code: string) => {
      localStore.set(KEYS.language, code);
      show(code).catch(() => undefined);
    },
    [show],
  );
  return { languages, choose };
}
