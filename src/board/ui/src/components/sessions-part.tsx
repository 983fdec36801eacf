import type { Session } from '../api/types.js';
import { useI18n } from '../hooks.js';
import type { MessageKey } from '../i18n/i18n.js';
import { Ago } from './ago.js';
import { NowPart, useShown } from './now-part.js';

const SHOWN = 10;
const WHY: Record<string, MessageKey> = {
  finished: 'session.finished',
  attention: 'session.attention',
  error: 'session.error',
};

/** Every session the machine lists, with its latest bell, the most recent first. */
export function SessionsPart(props: { sessions: readonly Session[] }) {
  const { t } = useI18n();
  const sorted = [...props.sessions].sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
  const { shown, toggle } = useShown(sorted, SHOWN);
  if (sorted.length === 0) return null;
  return (
    <NowPart part="sessions" title={t('now.sessions')} error={null}>
      <ul class="now-sessions">
        {shown.map((s) => {
          const why = WHY[s.why];
          const at = Date.parse(s.at);
          return (
            <li key={s.session} class={`bell ${s.why}`}>
              <span class="label">
                {why === undefined ? <span translate={false}>{s.why}</span> : t(why)}
              </span>{' '}
              <span class="session" translate={false}>
                {s.session}
              </span>
              {Number.isNaN(at) ? null : (
                <>
                  {' · '}
                  <Ago at={at} />
                </>
              )}
              {s.text === '' ? null : (
                <span class="bell-text" translate={false}>
                  {s.text}
                </span>
              )}
            </li>
          );
        })}
      </ul>
      {toggle === null ? null : <p class="now-more">{toggle}</p>}
    </NowPart>
  );
}
