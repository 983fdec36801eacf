import type { Child, Exit, Spawner, SpawnRequest } from './spawner.js';

/** A child process of the FakeSpawner, driven by the test. */
export class FakeChild implements Child {
  readonly argv: readonly string[];
  readonly signals: string[] = [];
  readonly started: Promise<void>;
  readonly exited: Promise<Exit>;
  pid: number | undefined;
  /** What a signal does; by default the child ends with it. */
  onKill: (signal: 'SIGTERM' | 'SIGKILL') => void = (signal) => this.exit(null, signal);
  private resolveStarted!: () => void;
  private rejectStarted!: (error: unknown) => void;
  private resolveExited!: (exit: Exit) => void;
  private done = false;

  constructor(
    request: SpawnRequest,
    private readonly write: (chunk: Buffer) => void,
    pid: number,
  ) {
    this.argv = request.argv;
    this.pid = pid;
    this.started = new Promise((resolve, reject) => {
      this.resolveStarted = resolve;
      this.rejectStarted = reject;
    });
    this.started.catch(() => undefined);
    this.exited = new Promise((resolve) => {
      this.resolveExited = resolve;
    });
  }

  start(): this {
    this.resolveStarted();
    return this;
  }

  fail(code = 'ENOENT'): void {
    this.pid = undefined;
    this.rejectStarted(Object.assign(new Error(`spawn ${this.argv[0]} ${code}`), { code }));
    this.finish({ code: null, signal: null });
  }

  output(text: string): this {
    this.write(Buffer.from(text));
    return this;
  }

  exit(code: number | null, signal: string | null = null): void {
    this.finish({ code, signal });
  }

  get ended(): boolean {
    return this.done;
  }

  kill(signal: 'SIGTERM' | 'SIGKILL'): void {
    this.signals.push(signal);
    if (!this.done) this.onKill(signal);
  }

  private finish(exit: Exit): void {
    if (this.done) return;
    this.done = true;
    this.resolveExited(exit);
  }
}

/**
 * A Spawner for unit tests. `behave` decides what each new child does (by default: starts, and
 * a program named `exit-N` exits with N; `missing` cannot start; anything else keeps running).
 */
export class FakeSpawner {
  readonly children: FakeChild[] = [];
  behave: (child: FakeChild) => void = defaultBehaviour;
  private nextPid = 1000;

  readonly spawn: Spawner = (request) => {
    const child = new FakeChild(request, request.onOutput, this.nextPid++);
    this.children.push(child);
    this.behave(child);
    return child;
  };

  /** The children started with `program` as argv[0]. */
  of(program: string): FakeChild[] {
    return this.children.filter((c) => c.argv[0] === program);
  }
}

function defaultBehaviour(child: FakeChild): void {
  const program = child.argv[0] ?? '';
  if (program === 'missing') {
    child.fail();
    return;
  }
  child.start();
  const exit = /^exit-(\d+)$/.exec(program);
  if (exit?.[1] !== undefined) {
    child.output(child.argv.slice(1).join(' '));
    child.exit(Number(exit[1]));
  }
}
