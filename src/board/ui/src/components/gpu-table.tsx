import type { Overview } from '../api/types.js';
import { useI18n } from '../hooks.js';
import { NowPart, TableBox } from './now-part.js';

/** Each GPU with every figure its tool gave (the card has only a bar per GPU). */
export function GpuTable(props: { overview: Overview }) {
  const i18n = useI18n();
  const { t } = i18n;
  const o = props.overview;
  if (o.gpus.length === 0 && o.gpusError === null) return null;
  return (
    <NowPart part="gpus" title={t('now.gpus')} error={o.gpusError}>
      {o.gpus.length === 0 ? null : (
        <TableBox label={t('now.gpus')}>
          <table class="now-table">
            <thead>
              <tr>
                <th scope="col" class="num">
                  {t('gpu.index')}
                </th>
                <th scope="col">{t('gpu.name')}</th>
                <th scope="col" class="num">
                  {t('gpu.util')}
                </th>
                <th scope="col" class="num">
                  {t('gpu.memory')}
                </th>
                <th scope="col" class="num">
                  {t('gpu.temp')}
                </th>
                <th scope="col" class="num">
                  {t('gpu.power')}
                </th>
              </tr>
            </thead>
            <tbody>
              {o.gpus.map((g) => (
                <tr key={g.index}>
                  <th scope="row" class="num">
                    {g.index}
                  </th>
                  <td translate={false}>{g.name}</td>
                  <td class="num" translate={false}>
                    {g.util === null ? '–' : i18n.percent(g.util)}
                  </td>
                  <td class="num" translate={false}>
                    {g.memUsed === null || g.memTotal === null
                      ? '–'
                      : `${i18n.bytes(g.memUsed)} / ${i18n.bytes(g.memTotal)}`}
                  </td>
                  <td class="num" translate={false}>
                    {g.tempC === null ? '–' : i18n.celsius(g.tempC)}
                  </td>
                  <td class="num" translate={false}>
                    {g.powerW === null ? '–' : `${i18n.number(g.powerW)} W`}
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
