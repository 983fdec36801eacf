import type { Temp } from '../api/types.js';
import { useI18n } from '../hooks.js';
import { NowPart, useShown } from './now-part.js';

const SHOWN = 12;

/** Each sensor's temperature, hottest first; the hottest is marked in words as well as colour. */
export function TempsPart(props: { temps: Temp[] | null; error: string | null }) {
  const i18n = useI18n();
  const { t } = i18n;
  const sorted = [...(props.temps ?? [])].sort((a, b) => b.c - a.c);
  const { shown, toggle } = useShown(sorted, SHOWN);
  if (props.temps === null && props.error === null) return null;
  const hottest = sorted[0]?.c ?? null;
  return (
    <NowPart part="temps" title={t('now.temps')} error={props.error}>
      {props.temps === null ? null : sorted.length === 0 ? (
        <p class="muted">{t('now.none')}</p>
      ) : (
        <ul class="temps">
          {shown.map((s, i) => {
            const hot = s.c === hottest;
            return (
              // Two sensors may share a label: the position keeps them apart.
              <li key={`${i}:${s.label}`} class={hot ? 'hottest' : ''}>
                <span class="temp-label" translate={false}>
                  {s.label}
                </span>
                <span class="temp-value">
                  <span translate={false}>{i18n.celsius(s.c)}</span>
                  {hot ? <span class="hot-mark"> {t('temp.hottest')}</span> : null}
                </span>
              </li>
            );
          })}
        </ul>
      )}
      {toggle === null ? null : <p class="now-more">{toggle}</p>}
    </NowPart>
  );
}
