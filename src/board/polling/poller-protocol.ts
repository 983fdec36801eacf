import type { PreparedOverview } from '../domain/machine.js';

/** What the poller thread is started with. */
export interface PollerOptions {
  client: { connectTimeoutMs: number };
  /** The poller's old-space ceiling, MiB (pollerHeapMb of the machines it polls); default 128. */
  heapMb?: number;
}

/** Main thread → poller: poll one agent. */
export interface PollRequest {
  type: 'poll';
  id: number;
  url: string;
  key: string | null;
  /** PEM of the CA trusted for an https URL; null: the system's CAs. */
  ca: string | null;
  timeoutMs: number;
}

/** Poller → main thread: how one poll went. */
export type PollAnswer =
  | { id: number; ok: true; latencyMs: number; prepared: PreparedOverview }
  | { id: number; ok: false; latencyMs: number; error: string };
