import { type BoardSettings, boardSettings } from '../../src/board/config/config.js';
import { ActionQueue } from '../../src/board/domain/action-queue.js';
import type {
  AgentClient,
  AgentTarget,
  RelayOutcome,
} from '../../src/board/domain/agent-client.js';
import { Board } from '../../src/board/domain/board.js';
import { EventHub } from '../../src/board/domain/events.js';
import { Journal } from '../../src/board/domain/journal.js';
import { BoardLabels, LabelBook } from '../../src/board/domain/labels.js';
import type { Observation } from '../../src/board/domain/machine.js';
import { Registry } from '../../src/board/domain/registry.js';
import { Enrollments } from '../../src/board/enroll/enrollments.js';
import { MemoryStore } from '../../src/board/store/memory/state-store.js';
import { machineMemory } from '../../src/board/view/machine-memory.js';
import type { HandedChecks } from '../../src/shared/checks/wire.js';
import { ManualClock } from '../../src/shared/clock.js';

/** A scripted AgentClient: answers by machine URL, records every call. */
export class FakeClient implements AgentClient {
  polls: AgentTarget[] = [];
  relays: { target: AgentTarget; what: string; action: string }[] = [];
  /** How long the board gave each relay (ms), in order. */
  relayTimeouts: number[] = [];
  overviews = new Map<string, Observation>();
  answers = new Map<string, RelayOutcome>();

  overview(target: AgentTarget): Promise<Observation> {
    this.polls.push(target);
    return Promise.resolve(
      this.overviews.get(target.url) ?? { ok: false, error: 'connection refused' },
    );
  }
  relay(
    target: AgentTarget,
    what: string,
    action: string,
    timeoutMs: number,
  ): Promise<RelayOutcome> {
    this.relays.push({ target, what, action });
    this.relayTimeouts.push(timeoutMs);
    return Promise.resolve(
      this.answers.get(target.url) ?? { kind: 'unreachable', error: 'connection refused' },
    );
  }
  /** Updates handed to configured machines, and what their agents answer, by URL. */
  updates: AgentTarget[] = [];
  updateAnswers = new Map<string, RelayOutcome>();
  requestUpdate(target: AgentTarget): Promise<RelayOutcome> {
    this.updates.push(target);
    return Promise.resolve(
      this.updateAnswers.get(target.url) ?? { kind: 'unreachable', error: 'connection refused' },
    );
  }
  /** Checks handed to configured machines (PUT /api/checks), by URL. */
  handed: { target: AgentTarget; checks: HandedChecks }[] = [];
  handChecks(target: AgentTarget, checks: HandedChecks): Promise<RelayOutcome> {
    this.handed.push({ target, checks });
    return Promise.resolve({ kind: 'answer', status: 200, body: { version: checks.version } });
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

export const TOKEN = 'board-token-0123456789';

/** A board wired to a manual clock, a fake client and in-memory logs. */
export function testBoard(raw: Partial<Parameters<typeof boardSettings>[0]> = {}) {
  const settings: BoardSettings = boardSettings(
    { board_token: TOKEN, ...raw },
    '/etc/panoptes/board.yaml',
    '/etc/panoptes',
  );
  const clock = new ManualClock();
  const client = new FakeClient();
  const events = new EventHub();
  const changes: string[] = [];
  const removed: string[] = [];
  events.subscribe({
    machineChanged: (m) => changes.push(m.name),
    machineRemoved: (n) => removed.push(n),
  });
  const book = new LabelBook(settings.machines, []);
  const registry = new Registry(
    clock,
    events,
    settings.machines,
    settings.maxAnnounced,
    machineMemory(clock),
    { maxAnnouncedBytes: settings.maxAnnouncedBytes, boardLabels: (name) => book.of(name) },
  );
  const store = new MemoryStore();
  const queue = new ActionQueue(clock, store.queue, []);
  const journal = new Journal(clock, events, store.journal, []);
  const enrollments = new Enrollments(store.enrollments, () => clock.now(), []);
  const board = new Board({ settings, clock, client, registry, queue, journal, enrollments });
  const labels = new BoardLabels(book, { registry, journal, table: store.labels });
  return {
    labels,
    settings,
    clock,
    client,
    events,
    registry,
    queue,
    store,
    journal,
    board,
    enrollments,
    changes,
    removed,
  };
}
