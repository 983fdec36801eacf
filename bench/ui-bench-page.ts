/** The UI bench inside the page: User Timing measures waited for, interactions timed. */
import type { Page } from 'playwright-core';

/** The browser globals the page-side functions use (this program is type-checked for Node). */
export interface PageGlobals {
  performance: {
    timeOrigin: number;
    now(): number;
    getEntriesByName(name: string): { startTime: number; duration: number }[];
    getEntriesByType(type: string): {
      name: string;
      startTime: number;
      responseEnd: number;
      domContentLoadedEventEnd: number;
    }[];
    memory?: { usedJSHeapSize: number };
  };
  document: {
    getElementsByTagName(name: string): { length: number };
    querySelectorAll(selector: string): { length: number };
  };
}

/** Waits (bounded) until the page has recorded a User Timing measure newer than `after`. */
export async function measure(
  page: Page,
  name: string,
  after = -1,
): Promise<{ startTime: number; duration: number }> {
  const handle = await page.waitForFunction(
    ([n, a]) => {
      const e = (globalThis as unknown as PageGlobals).performance
        .getEntriesByName(n as string)
        .at(-1);
      return e !== undefined && e.startTime + e.duration > (a as number)
        ? { startTime: e.startTime, duration: e.duration }
        : null;
    },
    [name, after] as const,
    { timeout: 60_000, polling: 20 },
  );
  return (await handle.jsonValue()) as { startTime: number; duration: number };
}

export type Interaction = 'filter' | 'clear-filter' | 'sort' | 'next-page';

/**
 * Does one interaction inside the page (as the browser would dispatch it, without a driver
 * round trip in the figure) and resolves with the milliseconds until the frame that shows it
 * has been painted.
 */
export function timeInteraction(page: Page, what: Interaction): Promise<number> {
  return page.evaluate(
    (action) =>
      new Promise<number>((resolve, reject) => {
        interface Control {
          value: string;
          click(): void;
          dispatchEvent(event: unknown): boolean;
        }
        const w = globalThis as unknown as PageGlobals & {
          Event: new (type: string, init: { bubbles: boolean }) => unknown;
          requestAnimationFrame(f: () => void): void;
          document: { querySelector(selector: string): Control | null };
        };
        const find = (selector: string) => {
          const el = w.document.querySelector(selector);
          if (el === null) throw new Error(`no ${selector}`);
          return el;
        };
        try {
          const start = w.performance.now();
          if (action === 'filter' || action === 'clear-filter') {
            const input = find('input[aria-labelledby="filter-text-label"]');
            input.value = action === 'filter' ? 'm0004' : '';
            input.dispatchEvent(new w.Event('input', { bubbles: true }));
          } else if (action === 'sort') {
            const select = find('select[aria-labelledby="filter-sort-label"]');
            select.value = 'state';
            select.dispatchEvent(new w.Event('change', { bubbles: true }));
          } else {
            find('nav.pages button:last-of-type').click();
          }
          // Preact renders in a microtask; the next frame paints it; the task after that
          // runs once it has been painted.
          w.requestAnimationFrame(() => setTimeout(() => resolve(w.performance.now() - start), 0));
        } catch (error) {
          reject(error);
        }
      }),
    what,
  );
}
