import { useRef, useState } from 'preact/hooks';
import type { BindingView } from '../auth/can.js';
import { useI18n } from '../hooks.js';
import type { MessageKey } from '../i18n/i18n.js';

export const ROLE_TEXT: Record<string, MessageKey> = {
  viewer: 'account.role.viewer',
  operator: 'account.role.operator',
  admin: 'account.role.admin',
};
const ROLES = ['viewer', 'operator', 'admin'] as const;

/** A binding as text: "operator (env=prod)", the selector as written. */
export function BindingText(props: { binding: BindingView }) {
  const { t } = useI18n();
  const key = ROLE_TEXT[props.binding.role];
  return (
    <span class="binding">
      {key === undefined ? props.binding.role : t(key)}
      {props.binding.selector === null ? null : (
        <code translate={false}> {props.binding.selector}</code>
      )}
    </span>
  );
}

/** A role picker and an optional selector (empty: every machine), for a binding or a token. */
export function RoleFields(props: {
  id: string;
  role: string;
  selector: string;
  onChange(role: string, selector: string): void;
}) {
  const { t } = useI18n();
  return (
    <>
      <label class="field">
        <span>{t('account.role')}</span>
        <select
          id={`${props.id}-role`}
          value={props.role}
          onChange={(e) => props.onChange(e.currentTarget.value, props.selector)}
        >
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {t(ROLE_TEXT[r] ?? 'account.role.viewer')}
            </option>
          ))}
        </select>
      </label>
      <label class="field">
        <span>{t('account.selector')}</span>
        <input
          id={`${props.id}-selector`}
          spellcheck={false}
          placeholder="env=prod"
          value={props.selector}
          onInput={(e) => props.onChange(props.role, e.currentTarget.value)}
        />
      </label>
    </>
  );
}

/** A binding from the fields: no selector when the box is empty. */
export function bindingOf(role: string, selector: string): BindingView {
  const s = selector.trim();
  return { role, selector: s === '' ? null : s };
}

/** A secret shown this once (a sign-up link, a token), with a copy button. */
export function ShownOnce(props: { label: string; value: string; onDone(): void }) {
  const { t } = useI18n();
  const box = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.value);
    } catch {
      // No clipboard API (plain http to another host): select and copy.
      box.current?.select();
      document.execCommand('copy');
    }
    setCopied(true);
  };
  return (
    <div class="shown-once" role="status">
      <label class="field">
        <span>{props.label}</span>
        <input
          ref={box}
          readOnly
          value={props.value}
          data-testid="shown-once"
          translate={false}
          spellcheck={false}
        />
      </label>
      <p class="muted">{t('account.onlyOnce')}</p>
      <p class="label-buttons">
        <button type="button" class="primary" onClick={() => void copy()}>
          {t(copied ? 'add.copied' : 'add.copy')}
        </button>
        <button type="button" onClick={props.onDone}>
          {t('account.done')}
        </button>
      </p>
    </div>
  );
}

/** A time, or a dash when there is none. */
export function When(props: { at: number | null }) {
  const { time } = useI18n();
  if (props.at === null) return <span>–</span>;
  return <time dateTime={new Date(props.at).toISOString()}>{time(props.at)}</time>;
}
