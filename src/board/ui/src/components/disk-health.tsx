import type { DiskHealth } from '../api/types.js';
import { useI18n } from '../hooks.js';
import { NowPart, TableBox } from './now-part.js';

/** Each disk smartctl knows: failing ones first, in words and colour. */
export function DiskHealthTable(props: { smart: DiskHealth[] | null; error: string | null }) {
  const i18n = useI18n();
  const { t } = i18n;
  if (props.smart === null && props.error === null) return null;
  const order = (d: DiskHealth) => (d.passed === false ? 0 : d.passed === null ? 1 : 2);
  const disks = [...(props.smart ?? [])].sort((a, b) => order(a) - order(b));
  return (
    <NowPart part="smart" title={t('now.smart')} error={props.error}>
      {props.smart === null ? null : disks.length === 0 ? (
        <p class="muted">{t('now.none')}</p>
      ) : (
        <TableBox label={t('now.smart')}>
          <table class="now-table">
            <thead>
              <tr>
                <th scope="col">{t('smart.device')}</th>
                <th scope="col">{t('smart.model')}</th>
                <th scope="col">{t('smart.health')}</th>
                <th scope="col" class="num">
                  {t('smart.temp')}
                </th>
                <th scope="col" class="num">
                  {t('smart.hours')}
                </th>
              </tr>
            </thead>
            <tbody>
              {disks.map((d) => (
                <tr key={d.device} class={d.passed === false ? 'problem' : ''} data-disk={d.device}>
                  <th scope="row" translate={false}>
                    {d.device}
                  </th>
                  <td translate={false}>{d.model ?? '–'}</td>
                  <td class={d.passed === false ? 'failing' : d.passed ? 'passed' : ''}>
                    <span aria-hidden="true">
                      {d.passed === false ? '✖ ' : d.passed ? '✔ ' : '? '}
                    </span>
                    {t(
                      d.passed === false
                        ? 'smart.failing'
                        : d.passed
                          ? 'smart.passed'
                          : 'smart.unknown',
                    )}
                  </td>
                  <td class="num" translate={false}>
                    {d.tempC === null ? '–' : i18n.celsius(d.tempC)}
                  </td>
                  <td class="num" translate={false}>
                    {d.powerOnHours === null ? '–' : i18n.number(d.powerOnHours)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableBox>
      )}
    </NowPart>
  );
}
