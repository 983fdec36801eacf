import type { HistoryEvent } from '../api/history.js';
import { useI18n } from '../hooks.js';

/** "2 d 3 h", "4 min 10 s": how long a state lasted. */
export function duration(s: number): string {
  const parts: [number, string][] = [
    [Math.floor(s / 86_400), 'd'],
    [Math.floor((s % 86_400) / 3600), 'h'],
    [Math.floor((s % 3600) / 60), 'min'],
    [Math.floor(s % 60), 's'],
  ];
  const shown = parts.filter(([n]) => n > 0).slice(0, 2);
  return shown.length === 0 ? '0 s' : shown.map(([n, u]) => `${n} ${u}`).join(' ');
}

/** A machine's recent state changes, most recent first. */
export function StateChanges(props: { events: HistoryEvent[] }) {
  const { t, time } = useI18n();
  if (props.events.length === 0) return <p class="muted">{t('history.noEvents')}</p>;
  return (
    <table class="state-changes" data-testid="state-changes">
      <thead>
        <tr>
          <th scope="col">{t('history.when')}</th>
          <th scope="col">{t('history.change')}</th>
          <th scope="col">{t('history.lasted')}</th>
          <th scope="col">{t('history.reason')}</th>
        </tr>
      </thead>
      <tbody>
        {props.events.map((e) => (
          <tr key={e.at} class={e.state}>
            <td>{time(e.at)}</td>
            <td>
              {e.previous === null
                ? t('history.firstSeen')
                : t(e.previous === 'up' ? 'machine.up' : 'machine.down')}
              {' → '}
              <strong>{t(e.state === 'up' ? 'machine.up' : 'machine.down')}</strong>
            </td>
            <td>{e.durationS === null ? '–' : duration(e.durationS)}</td>
            <td translate={false}>{e.reason ?? ''}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
