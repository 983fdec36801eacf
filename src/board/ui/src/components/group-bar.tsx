import { useMemo } from 'preact/hooks';
import type { Machine } from '../api/types.js';
import { useI18n } from '../hooks.js';
import { countGroups, type PageGroup, useThrottled } from '../state/groups.js';

const COUNT_EVERY_MS = 2000;

/**
 * The groups of board.yaml as a row of buttons with their up and down machines (counted here,
 * at most every two seconds); one pressed filters the list by its selector, pressed again not.
 */
export function GroupBar(props: {
  groups: readonly PageGroup[];
  machines: ReadonlyMap<string, Machine>;
  version: number;
  active: string;
  onPick(name: string): void;
}) {
  const { t } = useI18n();
  const { groups, machines } = props;
  const counted = useThrottled(props.version, COUNT_EVERY_MS);
  const counts = useMemo(() => {
    void counted;
    return countGroups(groups, machines.values());
  }, [groups, machines, counted]);
  if (groups.length === 0) return null;
  return (
    <nav class="group-bar" aria-label={t('groups.heading')}>
      <ul>
        {groups.map((g) => {
          const c = counts.get(g.name) ?? { up: 0, down: 0 };
          const pressed = props.active === g.name;
          return (
            <li key={g.name}>
              <button
                type="button"
                class="group"
                aria-pressed={pressed}
                title={g.selector.text}
                data-group={g.name}
                data-up={c.up}
                data-down={c.down}
                onClick={() => props.onPick(pressed ? '' : g.name)}
              >
                <span class="group-name" translate={false}>
                  {g.name}
                </span>{' '}
                <span class="group-up">
                  <span aria-hidden="true">▲</span>
                  {c.up}
                  <span class="visually-hidden"> {t('groups.up')}</span>
                </span>{' '}
                <span class={`group-down${c.down > 0 ? ' some' : ''}`}>
                  <span aria-hidden="true">✖</span>
                  {c.down}
                  <span class="visually-hidden"> {t('groups.down')}</span>
                </span>
              </button>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
