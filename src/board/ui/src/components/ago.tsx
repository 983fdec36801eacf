import { useI18n, useNow } from '../hooks.js';

/** "12 s ago", kept current by the page's one-second clock. */
export function Ago(props: { at: number }) {
  const { t, time } = useI18n();
  const now = useNow();
  const s = Math.max(0, Math.floor((now - props.at) / 1000));
  const text =
    s < 1
      ? t('ago.now')
      : s < 60
        ? t('ago.seconds', { n: s })
        : s < 3600
          ? t('ago.minutes', { n: Math.floor(s / 60) })
          : s < 86400
            ? t('ago.hours', { n: Math.floor(s / 3600) })
            : t('ago.days', { n: Math.floor(s / 86400) });
  return (
    <time data-ago="" dateTime={new Date(props.at).toISOString()} title={time(props.at)}>
      {text}
    </time>
  );
}
