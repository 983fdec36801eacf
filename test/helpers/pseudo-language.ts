import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';

const english = JSON.parse(
  readFileSync(new URL('../../src/board/lang/en.json', import.meta.url), 'utf8'),
) as { messages: Record<string, string> };

/**
 * A pseudo-language for the board's config `lang/` directory: every message of English wrapped
 * in «…», so any English text on the page that did not come from the catalogue stands out.
 * The keys in `missing` are left out on purpose: they must fall back to English.
 */
export function pseudoLanguage(missing: readonly string[] = []) {
  return {
    code: 'zz',
    name: 'Pseudo',
    messages: Object.fromEntries(
      Object.entries(english.messages)
        .filter(([key]) => !missing.includes(key))
        .map(([key, text]) => [key, `«${text}»`]),
    ),
  };
}

/**
 * Text with letters that is neither from the catalogue (wrapped) nor marked as data: in the
 * whole page, or only in the elements `within` selects (and then not the page's title).
 */
export function untranslated(page: Page, within?: string): Promise<string[]> {
  return page.evaluate((within) => {
    const found: string[] = [];
    const roots = within === undefined ? [document.body] : [...document.querySelectorAll(within)];
    const letters = /\p{L}/u;
    const isData = (el: Element | null) => el?.closest('[translate="no"]') != null;
    for (const root of roots) {
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n !== null; n = walker.nextNode()) {
        const text = n.textContent ?? '';
        if (!letters.test(text) || isData(n.parentElement)) continue;
        if (!text.includes('«') && !text.includes('»')) found.push(`text: ${text}`);
      }
    }
    const labelled = roots.flatMap((r) => [
      r,
      ...r.querySelectorAll('[aria-label], [title], [placeholder]'),
    ]);
    for (const el of labelled) {
      if (isData(el)) continue;
      for (const attr of ['aria-label', 'title', 'placeholder']) {
        // A <time>'s title is the date in the browser's own format, not a message.
        if (attr === 'title' && el.tagName === 'TIME') continue;
        const value = el.getAttribute(attr);
        if (value === null || !letters.test(value)) continue;
        if (!value.includes('«')) found.push(`${attr}: ${value}`);
      }
    }
    if (within === undefined && !document.title.includes('«'))
      found.push(`title: ${document.title}`);
    return found;
  }, within);
}
