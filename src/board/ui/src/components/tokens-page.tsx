import { useCallback, useState } from 'preact/hooks';
import type { AccountsApi } from '../api/accounts.js';
import { useI18n } from '../hooks.js';
import type { MessageKey } from '../i18n/i18n.js';
import { useAccountList } from './account-list.js';
import { BindingText, RoleFields, ShownOnce, When } from './account-parts.js';

/** The lifetimes offered for a new token (seconds; null: until deleted). */
const EXPIRY: readonly { s: number | null; key: MessageKey }[] = [
  { s: 30 * 86400, key: 'tokens.expiry.30d' },
  { s: 90 * 86400, key: 'tokens.expiry.90d' },
  { s: 365 * 86400, key: 'tokens.expiry.365d' },
  { s: null, key: 'tokens.expiry.never' },
];

/**
 * API tokens for scripts and MCP: the person's own (an admin sees every one); make one (the
 * token shown this once) or delete one. The board refuses a token wider than its maker.
 */
export function TokensPanel(props: { accounts: AccountsApi; problemText(e: unknown): string }) {
  const { t } = useI18n();
  const { accounts } = props;
  const [shown, setShown] = useState<{ name: string; token: string } | null>(null);
  const [name, setName] = useState('');
  const [role, setRole] = useState('viewer');
  const [selector, setSelector] = useState('');
  const [expiry, setExpiry] = useState(0);
  const [removing, setRemoving] = useState<string | null>(null);
  const list = useAccountList(
    useCallback(() => accounts.tokens(), [accounts]),
    props.problemText,
  );
  const { items: tokens, problem, busy, run } = list;

  return (
    <section class="account-panel" aria-labelledby="tokens-heading" data-testid="tokens">
      <h2 id="tokens-heading">{t('tokens.heading')}</h2>
      <p class="muted">{t('tokens.help')}</p>
      {problem === null ? null : (
        <p class="problem" role="alert">
          {problem}
        </p>
      )}
      {shown === null ? null : (
        <ShownOnce
          label={t('tokens.made', { name: shown.name })}
          value={shown.token}
          onDone={() => setShown(null)}
        />
      )}
      <form
        class="account-form"
        aria-label={t('tokens.make')}
        onSubmit={(e) => {
          e.preventDefault();
          const label = name.trim();
          if (label === '') return;
          const s = selector.trim();
          void run(async () => {
            const token = await accounts.makeToken({
              name: label,
              role,
              selector: s === '' ? null : s,
              expiresInS: EXPIRY[expiry]?.s ?? null,
            });
            setShown({ name: label, token });
            setName('');
          });
        }}
      >
        <label class="field">
          <span>{t('tokens.name')}</span>
          <input
            required
            spellcheck={false}
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </label>
        <RoleFields
          id="token-new"
          role={role}
          selector={selector}
          onChange={(r, s) => {
            setRole(r);
            setSelector(s);
          }}
        />
        <label class="field">
          <span>{t('tokens.expiry')}</span>
          <select value={String(expiry)} onChange={(e) => setExpiry(Number(e.currentTarget.value))}>
            {EXPIRY.map((x, i) => (
              <option key={x.key} value={String(i)}>
                {t(x.key)}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" class="primary" disabled={busy}>
          {t('tokens.make')}
        </button>
      </form>
      {tokens === null ? null : tokens.length === 0 ? (
        <p class="empty">{t('tokens.none')}</p>
      ) : (
        <div class="table-scroll">
          <table class="account-table">
            <thead>
              <tr>
                <th scope="col">{t('tokens.name')}</th>
                <th scope="col">{t('account.role')}</th>
                <th scope="col">{t('tokens.created')}</th>
                <th scope="col">{t('tokens.expires')}</th>
                <th scope="col">{t('tokens.lastUsed')}</th>
                <th scope="col">
                  <span class="visually-hidden">{t('account.actions')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {tokens.map((x) => (
                <tr key={x.id} data-token={x.id}>
                  <th scope="row" translate={false}>
                    {x.name}
                  </th>
                  <td>
                    <BindingText binding={{ role: x.role, selector: x.selector }} />
                  </td>
                  <td>
                    <When at={x.createdAt} />
                  </td>
                  <td>
                    {x.expiresAt === null ? t('tokens.expiry.never') : <When at={x.expiresAt} />}
                  </td>
                  <td>
                    <When at={x.lastUsedAt} />
                  </td>
                  <td class="row-actions">
                    {removing === x.id ? (
                      <>
                        <button
                          type="button"
                          class="danger"
                          disabled={busy}
                          onClick={() =>
                            void run(async () => {
                              await accounts.removeToken(x.id);
                              setRemoving(null);
                            })
                          }
                        >
                          {t('tokens.deleteYes', { name: x.name })}
                        </button>
                        <button type="button" onClick={() => setRemoving(null)}>
                          {t('people.cancel')}
                        </button>
                      </>
                    ) : (
                      <button
                        type="button"
                        aria-label={t('tokens.deleteLabel', { name: x.name })}
                        onClick={() => setRemoving(x.id)}
                      >
                        {t('tokens.delete')}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
