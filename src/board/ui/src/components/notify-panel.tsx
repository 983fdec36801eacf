import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../api/client.js';
import type { NotifyInfo } from '../api/types.js';
import { useCan } from '../auth/can.js';
import { useI18n } from '../hooks.js';
import { notificationsSupported } from '../state/browser-notify.js';
import {
  type PushState,
  pushState,
  subscribeThisBrowser,
  unsubscribeThisBrowser,
} from '../state/web-push.js';

type TestState = { kind: 'sending' } | { kind: 'ok' } | { kind: 'failed'; detail: string };

export interface NotifyPanelProps {
  api: Api;
  /** Browser notifications asked for on this board (stored per browser). */
  browserEnabled: boolean;
  onBrowserEnabled(enabled: boolean): void;
}

/**
 * The notifications the board sends (channels by name and kind, never their addresses; the
 * rules), a test button per channel, and browser notifications for this page.
 */
export function NotifyPanel(props: NotifyPanelProps) {
  const { t } = useI18n();
  const can = useCan();
  const { api } = props;
  const [info, setInfo] = useState<NotifyInfo | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [tests, setTests] = useState<Record<string, TestState>>({});
  const [permission, setPermission] = useState<string>(() =>
    notificationsSupported() ? Notification.permission : 'unsupported',
  );

  useEffect(() => {
    let cancelled = false;
    api.notify().then(
      (i) => {
        if (!cancelled) setInfo(i);
      },
      (error: unknown) => {
        if (!cancelled) setProblem(error instanceof Error ? error.message : String(error));
      },
    );
    return () => {
      cancelled = true;
    };
  }, [api]);

  const test = (channel: string) => {
    setTests((all) => ({ ...all, [channel]: { kind: 'sending' } }));
    api.testChannel(channel).then(
      () => setTests((all) => ({ ...all, [channel]: { kind: 'ok' } })),
      (error: unknown) =>
        setTests((all) => ({
          ...all,
          [channel]: {
            kind: 'failed',
            detail: error instanceof Error ? error.message : String(error),
          },
        })),
    );
  };

  const toggleBrowser = async (want: boolean) => {
    if (!want) {
      props.onBrowserEnabled(false);
      return;
    }
    const answer =
      Notification.permission === 'default'
        ? await Notification.requestPermission()
        : Notification.permission;
    setPermission(answer);
    props.onBrowserEnabled(answer === 'granted');
  };

  return (
    <details class="notify-panel" data-testid="notify-panel">
      <summary>{t('notify.heading')}</summary>
      {problem !== null ? (
        <p class="problem" role="alert">
          {problem}
        </p>
      ) : null}
      {info === null ? null : info.channels.length === 0 ? (
        <p>{t('notify.none')}</p>
      ) : (
        <>
          <h3>{t('notify.channels')}</h3>
          <ul class="channels">
            {info.channels.map((c) => {
              const state = tests[c.name];
              return (
                <li key={c.name} data-channel={c.name}>
                  <span class="channel-name" translate={false}>
                    {c.name}
                  </span>{' '}
                  <span class="channel-kind">{c.kind}</span>{' '}
                  {!can.testChannels() ? null : (
                    <button
                      type="button"
                      disabled={state?.kind === 'sending'}
                      aria-label={t('notify.testLabel', { channel: c.name })}
                      onClick={() => test(c.name)}
                    >
                      {t('notify.test')}
                    </button>
                  )}{' '}
                  {state === undefined || state.kind === 'sending' ? null : (
                    <span class={`test-result ${state.kind}`} role="status">
                      {state.kind === 'ok'
                        ? t('notify.testOk')
                        : t('notify.testFailed', { detail: state.detail })}
                    </span>
                  )}
                </li>
              );
            })}
          </ul>
          <h3>{t('notify.rules')}</h3>
          <ul class="rules">
            {info.rules.map((r, i) => (
              <li key={String(i)} translate={false}>
                {t('notify.rule', {
                  events: r.events.join(', '),
                  machines: r.machines.join(', '),
                  channels: r.channels.join(', '),
                })}
              </li>
            ))}
          </ul>
        </>
      )}
      <h3>{t('notify.browserHeading')}</h3>
      {permission === 'unsupported' ? (
        <p>{t('notify.browserUnsupported')}</p>
      ) : (
        <label class="browser-notify">
          <input
            type="checkbox"
            checked={props.browserEnabled && permission === 'granted'}
            onChange={(e) => void toggleBrowser((e.target as HTMLInputElement).checked)}
          />{' '}
          {t('notify.browser')}
        </label>
      )}
      {permission === 'denied' ? <p class="problem">{t('notify.browserDenied')}</p> : null}
      {info?.channels.some((c) => c.kind === 'webpush') ? <PushControl api={api} /> : null}
    </details>
  );
}

type Shown = PushState | { kind: 'busy' };

/**
 * "Notify this browser": Web Push, which reaches this browser (a phone too) with the page closed,
 * through the board's webpush channels (shown only when the board has one).
 */
function PushControl(props: { api: Api }) {
  const { t } = useI18n();
  const { api } = props;
  const [state, setState] = useState<Shown | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  useEffect(() => {
    let cancelled = false;
    const settle = (s: Shown) => {
      if (!cancelled) setState(s);
    };
    pushState().then(settle, () => settle({ kind: 'unsupported' }));
    return () => {
      cancelled = true;
    };
  }, []);

  const run = (work: (api: Api) => Promise<PushState>) => {
    setState({ kind: 'busy' });
    setProblem(null);
    work(api).then(setState, (error: unknown) => {
      setProblem(error instanceof Error ? error.message : String(error));
      pushState().then(setState, () => setState({ kind: 'off' }));
    });
  };

  if (state === null) return null;
  const note: Partial<Record<Shown['kind'], string>> = {
    unsupported: t('push.unsupported'),
    insecure: t('push.insecure'),
    denied: t('notify.browserDenied'),
  };
  const said = note[state.kind];
  return (
    <div class="push-control" data-testid="push-control" data-state={state.kind}>
      <p>{t('push.explain')}</p>
      {said !== undefined ? (
        <p class={state.kind === 'denied' ? 'problem' : ''}>{said}</p>
      ) : state.kind === 'on' ? (
        <p>
          <span role="status">{t('push.on')}</span>{' '}
          <button type="button" onClick={() => run(unsubscribeThisBrowser)}>
            {t('push.disable')}
          </button>
        </p>
      ) : (
        <button
          type="button"
          disabled={state.kind === 'busy'}
          onClick={() => run(subscribeThisBrowser)}
        >
          {t('push.enable')}
        </button>
      )}
      {problem !== null ? (
        <p class="problem" role="alert">
          {t('push.failed', { detail: problem })}
        </p>
      ) : null}
    </div>
  );
}
