import type { ProcessInfo } from '../api/types.js';
import { useI18n } from '../hooks.js';
import type { MessageKey } from '../i18n/i18n.js';
import { NowPart, TableBox } from './now-part.js';

/** How many of each list: the agent sends the top 10 by CPU and the top 10 by memory. */
const TOP = 10;

function Top(props: { title: MessageKey; list: readonly ProcessInfo[]; by: 'cpu' | 'mem' }) {
  const i18n = useI18n();
  const { t } = i18n;
  return (
    <div class="process-top" data-testid={`processes-${props.by}`}>
      <h4>{t(props.title)}</h4>
      <TableBox label={t(props.title)}>
        <table class="now-table">
          <thead>
            <tr>
              <th scope="col">{t('process.name')}</th>
              <th scope="col" class="num">
                {t('process.pid')}
              </th>
              <th scope="col">{t('process.user')}</th>
              <th scope="col" class="num">
                {t('process.cpu')}
              </th>
              <th scope="col" class="num">
                {t('process.mem')}
              </th>
            </tr>
          </thead>
          <tbody>
            {props.list.map((p) => (
              <tr key={p.pid}>
                <th scope="row" translate={false}>
                  {p.name}
                </th>
                <td class="num" translate={false}>
                  {p.pid}
                </td>
                <td translate={false}>{p.user}</td>
                <td class={`num${props.by === 'cpu' ? ' key' : ''}`} translate={false}>
                  {i18n.fineShare(p.cpu)}
                </td>
                <td class={`num${props.by === 'mem' ? ' key' : ''}`} translate={false}>
                  {i18n.bytes(p.mem)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableBox>
    </div>
  );
}

/** The busiest processes by CPU and by memory: names only (the wire carries no arguments). */
export function ProcessesTable(props: { processes: ProcessInfo[] | null; error: string | null }) {
  const { t } = useI18n();
  if (props.processes === null && props.error === null) return null;
  const list = props.processes ?? [];
  const byCpu = [...list].sort((a, b) => b.cpu - a.cpu).slice(0, TOP);
  const byMem = [...list].sort((a, b) => b.mem - a.mem).slice(0, TOP);
  return (
    <NowPart part="processes" title={t('now.processes')} error={props.error}>
      {props.processes === null ? null : list.length === 0 ? (
        <p class="muted">{t('now.none')}</p>
      ) : (
        <div class="process-tops">
          <Top title="process.byCpu" list={byCpu} by="cpu" />
          <Top title="process.byMem" list={byMem} by="mem" />
        </div>
      )}
    </NowPart>
  );
}
