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
  const key = keyBytes(await api.pushKey());
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
  const id = await api.subscribePush(subscription.toJSON());
  localStore.set(KEYS.pushSubscription, id);
  return { kind: 'on' };
}

/** "Stop notifying this browser": the board forgets the subscription, and the browser too. */
export async function unsubscribeThisBrowser(api: Api): Promise<PushState> {
  const id = localStore.get(KEYS.pushSubscription);
  if (id !== null) await api.unsubscribePush(id);
  localStore.set(KEYS.pushSubscription, null);
  await (await currentSubscription().catch(() => null))?.unsubscribe();
  return { kind: 'off' };
}
