import { useCallback, useState } from 'preact/hooks';
import type { AccountsApi, SignupLink } from '../api/accounts.js';
import type { BindingView } from '../auth/can.js';
import { useI18n } from '../hooks.js';
import { useAccountList } from './account-list.js';
import { BindingText, bindingOf, RoleFields, ShownOnce, When } from './account-parts.js';

/** What a row of the list is doing: nothing, editing its bindings, or asking to be removed. */
type RowMode =
  | { name: string; kind: 'edit'; bindings: BindingView[] }
  | { name: string; kind: 'remove' };

/**
 * People (admins): who may sign in, with their source, bindings, last sign-in, passkeys and
 * password; add one (a one-time link shown once), change bindings, remove, make a new link.
 */
export function PeoplePanel(props: { accounts: AccountsApi; problemText(e: unknown): string }) {
  const { t } = useI18n();
  const { accounts } = props;
  const [shown, setShown] = useState<{ name: string; link: SignupLink } | null>(null);
  const [mode, setMode] = useState<RowMode | null>(null);
  const [name, setName] = useState('');
  const [role, setRole] = useState('viewer');
  const [selector, setSelector] = useState('');
  const list = useAccountList(
    useCallback(() => accounts.people(), [accounts]),
    props.problemText,
  );
  const { items: people, problem, busy, run } = list;

  return (
    <section class="account-panel" aria-labelledby="people-heading" data-testid="people">
      <h2 id="people-heading">{t('people.heading')}</h2>
      {problem === null ? null : (
        <p class="problem" role="alert">
          {problem}
        </p>
      )}
      {shown === null ? null : (
        <ShownOnce
          label={t('people.link', { name: shown.name })}
          value={shown.link.link}
          onDone={() => setShown(null)}
        />
      )}
      <form
        class="account-form"
        aria-label={t('people.add')}
        onSubmit={(e) => {
          e.preventDefault();
          const who = name.trim();
          if (who === '') return;
          void run(async () => {
            const link = await accounts.addPerson(who, [bindingOf(role, selector)]);
            setShown({ name: who, link });
            setName('');
            setSelector('');
          });
        }}
      >
        <label class="field">
          <span>{t('people.name')}</span>
          <input
            required
            spellcheck={false}
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </label>
        <RoleFields
          id="person-new"
          role={role}
          selector={selector}
          onChange={(r, s) => {
            setRole(r);
            setSelector(s);
          }}
        />
        <button type="submit" class="primary" disabled={busy}>
          {t('people.add')}
        </button>
      </form>
      {people === null ? null : people.length === 0 ? (
        <p class="empty">{t('people.none')}</p>
      ) : (
        <div class="table-scroll">
          <table class="account-table">
            <thead>
              <tr>
                <th scope="col">{t('people.name')}</th>
                <th scope="col">{t('people.source')}</th>
                <th scope="col">{t('people.bindings')}</th>
                <th scope="col">{t('people.signedIn')}</th>
                <th scope="col">{t('people.passkeys')}</th>
                <th scope="col">{t('people.password')}</th>
                <th scope="col">
                  <span class="visually-hidden">{t('account.actions')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {people.map((p) => (
                <tr key={p.name} data-person={p.name}>
                  <th scope="row" translate={false}>
                    {p.name}
                  </th>
                  <td>{p.source}</td>
                  <td>
                    {mode?.name === p.name && mode.kind === 'edit' ? (
                      <BindingsEditor
                        bindings={mode.bindings}
                        onChange={(bindings) => setMode({ name: p.name, kind: 'edit', bindings })}
                      />
                    ) : (
                      p.bindings.map((b, i) => <BindingText key={String(i)} binding={b} />)
                    )}
                  </td>
                  <td>
                    <When at={p.signedInAt} />
                  </td>
                  <td>{p.passkeys}</td>
                  <td>{t(p.password ? 'people.yes' : 'people.no')}</td>
                  <td class="row-actions">
                    {mode?.name === p.name && mode.kind === 'edit' ? (
                      <>
                        <button
                          type="button"
                          class="primary"
                          disabled={busy}
                          onClick={() =>
                            void run(async () => {
                              await accounts.setBindings(p.name, mode.bindings);
                              setMode(null);
                            })
                          }
                        >
                          {t('people.save')}
                        </button>
                        <button type="button" onClick={() => setMode(null)}>
                          {t('people.cancel')}
                        </button>
                      </>
                    ) : mode?.name === p.name && mode.kind === 'remove' ? (
                      <>
                        <button
                          type="button"
                          class="danger"
                          disabled={busy}
                          onClick={() =>
                            void run(async () => {
                              await accounts.removePerson(p.name);
                              setMode(null);
                            })
                          }
                        >
                          {t('people.removeYes', { name: p.name })}
                        </button>
                        <button type="button" onClick={() => setMode(null)}>
                          {t('people.cancel')}
                        </button>
                      </>
                    ) : (
                      <>
                        <button
                          type="button"
                          aria-label={t('people.editLabel', { name: p.name })}
                          onClick={() =>
                            setMode({ name: p.name, kind: 'edit', bindings: [...p.bindings] })
                          }
                        >
                          {t('people.edit')}
                        </button>
                        <button
                          type="button"
                          aria-label={t('people.newLinkLabel', { name: p.name })}
                          disabled={busy}
                          onClick={() =>
                            void run(async () => {
                              setShown({ name: p.name, link: await accounts.newLink(p.name) });
                            })
                          }
                        >
                          {t('people.newLink')}
                        </button>
                        <button
                          type="button"
                          aria-label={t('people.removeLabel', { name: p.name })}
                          onClick={() => setMode({ name: p.name, kind: 'remove' })}
                        >
                          {t('people.remove')}
                        </button>
                      </>
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

/** A person's bindings, each a role and an optional selector; one more, or one fewer. */
function BindingsEditor(props: { bindings: BindingView[]; onChange(b: BindingView[]): void }) {
  const { t } = useI18n();
  const { bindings, onChange } = props;
  return (
    <div class="bindings-editor">
      {bindings.map((b, i) => (
        <div class="binding-row" key={String(i)}>
          <RoleFields
            id={`binding-${i}`}
            role={b.role}
            selector={b.selector ?? ''}
            onChange={(role, selector) =>
              onChange(bindings.map((x, j) => (j === i ? bindingOf(role, selector) : x)))
            }
          />
          <button type="button" onClick={() => onChange(bindings.filter((_, j) => j !== i))}>
            {t('people.removeBinding')}
          </button>
        </div>
      ))}
      <button
        type="button"
        onClick={() => onChange([...bindings, { role: 'viewer', selector: null }])}
      >
        {t('people.addBinding')}
      </button>
    </div>
  );
}
