import type { ActionName, Service } from '../api/types.js';
import { useI18n } from '../hooks.js';
import type { MessageKey } from '../i18n/i18n.js';
import type { ActionState } from '../state/outcomes.js';
import { Outcome } from './outcome.js';

const STATE_TEXT: Record<Service['state'], MessageKey> = {
  running: 'service.running',
  stopped: 'service.stopped',
  unknown: 'service.unknown',
};
const STATE_ICON: Record<Service['state'], string> = { running: '●', stopped: '○', unknown: '?' };

export interface ServicesProps {
  machine: string;
  services: readonly Service[];
  outcomes: Readonly<Record<string, ActionState>>;
  onAction(machine: string, service: string, action: ActionName): void;
  onDismiss(machine: string, service: string | null): void;
  /** false: the person may not act on this machine (no buttons; see auth/can.ts). */
  canAct?: boolean;
}

/** Each published service with its state; buttons only for what the machine lets the board do. */
export function Services(props: ServicesProps) {
  const { t } = useI18n();
  if (props.services.length === 0) return null;
  return (
    <ul class="services" aria-label={t('service.listLabel', { machine: props.machine })}>
      {props.services.map((s) => {
        const state = props.outcomes[s.name];
        const sending = state !== undefined && state.outcome === null;
        const allowed = props.canAct === false ? [] : s.board.filter((a) => s.actions.includes(a));
        return (
          <li key={s.name} class={`service ${s.state}`}>
            <span class="service-name" translate={false}>
              {s.name}
            </span>
            <span class={`service-state ${s.state}`}>
              <span aria-hidden="true">{STATE_ICON[s.state]} </span>
              {t(STATE_TEXT[s.state])}
              {s.busy ? <span class="busy">{` · ${t('service.busy')}`}</span> : null}
            </span>
            <span class="service-actions">
              {allowed.map((a) => (
                <button
                  key={a}
                  type="button"
                  class={`action ${a}`}
                  // aria-disabled, not disabled: a disabled button would drop the keyboard focus.
                  aria-disabled={sending || s.busy}
                  aria-label={t(a === 'start' ? 'action.startLabel' : 'action.stopLabel', {
                    service: s.name,
                    machine: props.machine,
                  })}
                  onClick={() => {
                    if (!sending && !s.busy) props.onAction(props.machine, s.name, a);
                  }}
                >
                  {t(a === 'start' ? 'action.start' : 'action.stop')}
                </button>
              ))}
            </span>
            {state === undefined ? null : (
              <Outcome
                machine={props.machine}
                service={s.name}
                state={state}
                onDismiss={() => props.onDismiss(props.machine, s.name)}
              />
            )}
          </li>
        );
      })}
    </ul>
  );
}
