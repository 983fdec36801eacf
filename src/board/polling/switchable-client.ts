import type { AgentClient } from '../domain/agent-client.js';

/**
 * An AgentClient whose implementation a reload can replace (new CAs need new connection pools).
 * Calls already made finish on the client they started on: the old one is closed gracefully,
 * which waits for its requests in flight.
 */
export class SwitchableClient implements AgentClient {
  private retiring: Promise<void>[] = [];

  constructor(private current: AgentClient) {}

  overview: AgentClient['overview'] = (target, timeoutMs) =>
    this.current.overview(target, timeoutMs);

  relay: AgentClient['relay'] = (target, what, action, timeoutMs) =>
    this.current.relay(target, what, action, timeoutMs);

  requestUpdate: AgentClient['requestUpdate'] = (target, timeoutMs) =>
    this.current.requestUpdate(target, timeoutMs);

  handChecks: AgentClient['handChecks'] = (target, checks, timeoutMs) =>
    this.current.handChecks(target, checks, timeoutMs);

  /** Uses `next` from now on; the previous client closes once its calls in flight are done. */
  switchTo(next: AgentClient): void {
    const previous = this.current;
    this.current = next;
    this.retiring.push(previous.close().catch(() => undefined));
  }

  async close(): Promise<void> {
    await Promise.all([...this.retiring, this.current.close()]);
    this.retiring = [];
  }
}
