import { useI18n, useNow } from '../hooks.js';
import type { I18n, MessageKey } from '../i18n/i18n.js';

/** The messages of an elapsed time, one per unit. */
export interface ElapsedKeys {
  now: MessageKey;
  seconds: MessageKey;
  minutes: MessageKey;
  hours: MessageKey;
  days: MessageKey;
}

const AGO: ElapsedKeys = {
  now: 'ago.now',
  seconds: 'ago.seconds',
  minutes: 'ago.minutes',
  hours: 'ago.hours',
  days: 'ago.days',
};

/** `s` seconds in words, in the largest whole unit (s, min, h, d). */
export function elapsedText(t: I18n['t'], keys: ElapsedKeys, s: number): string {
  if (s < 1) return t(keys.now);
  if (s < 60) return t(keys.seconds, { n: s });
  if (s < 3600) return t(keys.minutes, { n: Math.floor(s / 60) });
  if (s < 86400) return t(keys.hours, { n: Math.floor(s / 3600) });
  return t(keys.days, { n: Math.floor(s / 86400) });
}

/** "12 s ago", kept current by the page's one-second clock. */
export function Ago(props: { at: number }) {
  const { t, time } = useI18n();
  const now = useNow();
  const s = Math.max(0, Math.floor((now - props.at) / 1000));
  const text = elapsedText(t, AGO, s);
  return (
    <time data-ago="" dateTime={new Date(props.at).toISOString()} title={time(props.at)}>
      {text}
    </time>
  );
}

/** "last seen 12 s ago", or "never seen". */
export function LastSeen(props: { at: number | null }) {
  const { t } = useI18n();
  return (
    <span class="seen">
      {props.at === null ? (
        t('machine.neverSeen')
      ) : (
        <>
          {t('machine.lastSeen')} <Ago at={props.at} />
        </>
      )}
    </span>
  );
}
