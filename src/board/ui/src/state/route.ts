import { useEffect, useState } from 'preact/hooks';

/** The machine page's address: the board's own page with `?machine=NAME` (one URL per machine). */
export function machineHref(name: string): string {
  return `?machine=${encodeURIComponent(name)}`;
}

function machineOf(search: string): string | null {
  const name = new URLSearchParams(search).get('machine');
  return name === null || name === '' ? null : name;
}

/** Goes to an address of this page without a reload (a history entry, so Back returns). */
export function navigate(href: string): void {
  window.history.pushState(null, '', href);
  window.dispatchEvent(new PopStateEvent('popstate'));
}

/** Opens a same-page link without a reload, unless the reader asked for a new tab. */
export function followLink(event: MouseEvent, href: string): void {
  if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey)
    return;
  event.preventDefault();
  navigate(href);
}

/** The machine whose page the address names, or null for the board. */
export function useMachineRoute(): string | null {
  const [machine, setMachine] = useState(() => machineOf(window.location.search));
  useEffect(() => {
    const onPop = () => setMachine(machineOf(window.location.search));
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);
  return machine;
}

/** The account pages: `?page=people` (admins) and `?page=tokens` (everyone's own). */
export type AccountRoute = 'people' | 'tokens';

function accountOf(search: string): AccountRoute | null {
  const page = new URLSearchParams(search).get('page');
  return page === 'people' || page === 'tokens' ? page : null;
}

/** The account page the address names, or null. */
export function useAccountRoute(): AccountRoute | null {
  const [page, setPage] = useState(() => accountOf(window.location.search));
  useEffect(() => {
    const onPop = () => setPage(accountOf(window.location.search));
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);
  return page;
}

/** A check's page: the board's own page with `?check=NAME`. */
export function checkHref(name: string): string {
  return `?check=${encodeURIComponent(name)}`;
}

function checkOf(search: string): string | null {
  const name = new URLSearchParams(search).get('check');
  return name === null || name === '' ? null : name;
}

/** The check whose page the address names, or null. */
export function useCheckRoute(): string | null {
  const [check, setCheck] = useState(() => checkOf(window.location.search));
  useEffect(() => {
    const onPop = () => setCheck(checkOf(window.location.search));
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);
  return check;
}
