import type { Api } from '../api/client.js';
import { KEYS, localStore } from '../storage.js';

/** The board's service worker (public/sw.js): shows push messages, opens the board on a click. */
export const WORKER_URL = '/sw.js';

/** Where this browser stands with the board's Web Push. */
export type PushState =
  | { kind: 'unsupported' }
  /** Push needs a secure context: the board over HTTPS (or on localhost). */
  | { kind: 'insecure' }
  | { kind: 'denied' }
  | { kind: 'off' }
  | { kind: 'on' };

interface TrustedTypePolicy {
  createScriptURL(url: string): unknown;
}
interface TrustedTypes {
  createPolicy(name: string, rules: { createScriptURL(url: string): string }): TrustedTypePolicy;
}

let policy: TrustedTypePolicy | null = null;

/**
 * The worker's address as the page's CSP wants it: Trusted Types guard script URLs, and the one
 * policy the CSP allows (`panoptes-sw`) makes only this one.
 */
function workerUrl(): string {
  const types = (window as unknown as { trustedTypes?: TrustedTypes }).trustedTypes;
  if (types === undefined) return WORKER_URL;
  policy ??= types.createPolicy('panoptes-sw', {
    createScriptURL(url) {
      if (url !== WORKER_URL) throw new TypeError('not the board’s service worker');
      return url;
    },
  });
  return policy.createScriptURL(WORKER_URL) as string;
}

/** Whether this browser can take Web Push messages here, and what stops it if not. */
export function pushSupport(): PushState | null {
  if (typeof window === 'undefined' || !('Notification' in window)) return { kind: 'unsupported' };
  if (!window.isSecureContext) return { kind: 'insecure' };
  if (!('serviceWorker' in navigator) || !('PushManager' in window)) return { kind: 'unsupported' };
  if (Notification.permission === 'denied') return { kind: 'denied' };
  return null;
}

/** The application server key as PushManager.subscribe takes it. */
function keyBytes(base64url: string): Uint8Array<ArrayBuffer> {
  const base64 = base64url.replace(/-/g, '+').replace(/_/g, '/');
  const text = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4));
  const bytes = new Uint8Array(new ArrayBuffer(text.length));
  for (let i = 0; i < text.length; i += 1) bytes[i] = text.charCodeAt(i);
  return bytes;
}

function sameKey(a: ArrayBuffer | null | undefined, b: Uint8Array): boolean {
  if (a === null || a === undefined || a.byteLength !== b.length) return false;
  const view = new Uint8Array(a);
  return view.every((byte, i) => byte === b[i]);
}

/** Where the page leaves the service worker what it needs to renew the subscription (sw.js). */
const KEPT_CACHE = 'panoptes-push';
const KEPT_URL = '/panoptes-push-subscription';

/** What the worker renews with: the subscription's id, its auth secret and the board's key. */
interface Kept {
  id: string;
  auth: string;
  key: string;
}

async function keptForWorker(): Promise<Kept | null> {
  try {
    const response = await (await caches.open(KEPT_CACHE)).match(KEPT_URL);
    const kept = (response === undefined ? null : await response.json()) as Kept | null;
    return typeof kept?.id === 'string' ? kept : null;
  } catch {
    return null;
  }
}

async function keepForWorker(kept: Kept | null): Promise<void> {
  const cache = await caches.open(KEPT_CACHE);
  if (kept === null) await cache.delete(KEPT_URL);
  else await cache.put(KEPT_URL, new Response(JSON.stringify(kept)));
}

/** This browser's subscription to the board's pushes, if it has one. */
async function currentSubscription(): Promise<PushSubscription | null> {
  const registration = await navigator.serviceWorker.getRegistration('/');
  return (await registration?.pushManager.getSubscription()) ?? null;
}

/** Where this browser stands now (on: subscribed here and known to the board). */
export async function pushState(): Promise<PushState> {
  const blocked = pushSupport();
  if (blocked !== null) return blocked;
  if (localStore.get(KEYS.pushSubscription) === null) return { kind: 'off' };
  try {
    return (await currentSubscription()) === null ? { kind: 'off' } : { kind: 'on' };
  } catch {
    return { kind: 'off' };
  }
}

/**
 * "Notify this browser": asks for permission, registers the service worker, subscribes with the
 * board's key through PushManager (again, if the browser holds a subscription made with another
 * key) and hands the subscription to the board. Rejects with the reason when it cannot.
 */
export async function subscribeThisBrowser(api: Api): Promise<PushState> {
  const blocked = pushSupport();
  if (blocked !== null) return blocked;
  const permission = await Notification.requestPermission();
  if (permission !== 'granted') return { kind: permission === 'denied' ? 'denied' : 'off' };
  const publicKey = await api.pushKey();
  const key = keyBytes(publicKey);
  await navigator.serviceWorker.register(workerUrl(), { scope: '/' });
  const registration = await navigator.serviceWorker.ready;
  let subscription = await registration.pushManager.getSubscription();
  if (subscription !== null && !sameKey(subscription.options.applicationServerKey, key)) {
    await subscription.unsubscribe();
    subscription = null;
  }
  subscription ??= await registration.pushManager.subscribe({
    userVisibleOnly: true,
    applicationServerKey: key,
  });
  const json = subscription.toJSON();
  const id = await api.subscribePush(json);
  localStore.set(KEYS.pushSubscription, id);
  await keepForWorker({ id, auth: json.keys?.auth ?? '', key: publicKey }).catch(() => undefined);
  return { kind: 'on' };
}

/** "Stop notifying this browser": the board forgets the subscription, and the browser too. */
export async function unsubscribeThisBrowser(api: Api): Promise<PushState> {
  // The worker's id is the newer one when it renewed the subscription since.
  const id = (await keptForWorker())?.id ?? localStore.get(KEYS.pushSubscription);
  if (id !== null) await api.unsubscribePush(id);
  localStore.set(KEYS.pushSubscription, null);
  await keepForWorker(null).catch(() => undefined);
  await (await currentSubscription().catch(() => null))?.unsubscribe();
  return { kind: 'off' };
}
