import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { useI18n } from '../hooks.js';

/**
 * One part of a machine's "now" (containers, processes…): a heading, why its source could not
 * be read when it could not (one line, in its place), and what it has.
 */
export function NowPart(props: {
  /** The part's name, for ids and test hooks: `now-containers`. */
  part: string;
  title: string;
  error: string | null;
  children?: ComponentChildren;
}) {
  const { t } = useI18n();
  const id = `now-${props.part}`;
  return (
    <section
      class={`now-part part-${props.part}`}
      aria-labelledby={`${id}-heading`}
      data-testid={id}
    >
      <h3 id={`${id}-heading`}>{props.title}</h3>
      {props.error === null ? null : (
        <p class="source-error" data-testid={`${id}-error`}>
          {t('now.error')} <span translate={false}>{props.error}</span>
        </p>
      )}
      {props.children}
    </section>
  );
}

/** The first `limit` of a long list, and a button that shows all of them or the first again. */
export function useShown<T>(items: readonly T[], limit: number) {
  const { t } = useI18n();
  const [all, setAll] = useState(false);
  const long = items.length > limit;
  return {
    shown: all || !long ? items : items.slice(0, limit),
    toggle: long ? (
      <button
        type="button"
        class="link show-all"
        aria-expanded={all}
        onClick={() => setAll((a) => !a)}
      >
        {all ? t('now.showFewer') : t('now.showAll', { count: items.length })}
      </button>
    ) : null,
  };
}

/** A wide table scrolls sideways inside its box, never the page. */
export function TableBox(props: { label: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard
    <section class="table-box" aria-label={props.label} tabIndex={0}>
      {props.children}
    </section>
  );
}
