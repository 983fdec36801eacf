import { useI18n } from '../hooks.js';

/** One cell per point of the window: up, down, partly down, or nothing recorded. */
export function UpStrip(props: { t: number[]; up: (number | null)[] }) {
  const { t, time } = useI18n();
  return (
    <div class="up-strip" role="img" aria-label={t('history.strip')} data-testid="up-strip">
      {props.up.map((v, i) => {
        const kind = v === null ? 'none' : v >= 0.999 ? 'up' : v <= 0.001 ? 'down' : 'partial';
        const at = props.t[i] ?? 0;
        return <span key={at} class={`cell ${kind}`} title={`${time(at * 1000)}: ${kind}`} />;
      })}
    </div>
  );
}
