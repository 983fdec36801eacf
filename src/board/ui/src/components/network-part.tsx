import type { Net } from '../api/types.js';
import { useI18n } from '../hooks.js';
import { NowPart, TableBox, useShown } from './now-part.js';

const SHOWN = 8;

/** The machine's receive and send rates, and each interface's (busiest first). */
export function NetworkPart(props: { net: Net | null; error: string | null }) {
  const i18n = useI18n();
  const { t } = i18n;
  const rate = (v: number | null) => (v === null ? '–' : i18n.rate(v));
  const total = (v: number | null) => (v === null ? '–' : i18n.bytes(v));
  const interfaces = [...(props.net?.interfaces ?? [])].sort(
    (a, b) => (b.rxBps ?? 0) + (b.txBps ?? 0) - ((a.rxBps ?? 0) + (a.txBps ?? 0)),
  );
  const { shown, toggle } = useShown(interfaces, SHOWN);
  if (props.net === null && props.error === null) return null;
  return (
    <NowPart part="network" title={t('now.network')} error={props.error}>
      {props.net === null ? null : (
        <>
          <dl class="now-figures" data-testid="net-rates">
            <div>
              <dt>{t('net.received')}</dt>
              <dd translate={false}>{rate(props.net.rxBps)}</dd>
            </div>
            <div>
              <dt>{t('net.sent')}</dt>
              <dd translate={false}>{rate(props.net.txBps)}</dd>
            </div>
          </dl>
          {shown.length === 0 ? null : (
            <TableBox label={t('now.network')}>
              <table class="now-table">
                <thead>
                  <tr>
                    <th scope="col">{t('net.interface')}</th>
                    <th scope="col" class="num">
                      {t('net.received')}
                    </th>
                    <th scope="col" class="num">
                      {t('net.sent')}
                    </th>
                    <th scope="col" class="num">
                      {t('net.rxTotal')}
                    </th>
                    <th scope="col" class="num">
                      {t('net.txTotal')}
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {shown.map((n) => (
                    <tr key={n.name} data-interface={n.name}>
                      <th scope="row" translate={false}>
                        {n.name}
                      </th>
                      <td class="num" translate={false}>
                        {rate(n.rxBps)}
                      </td>
                      <td class="num" translate={false}>
                        {rate(n.txBps)}
                      </td>
                      <td class="num" translate={false}>
                        {total(n.rxBytes)}
                      </td>
                      <td class="num" translate={false}>
                        {total(n.txBytes)}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableBox>
          )}
          {toggle === null ? null : <p class="now-more">{toggle}</p>}
        </>
      )}
    </NowPart>
  );
}
