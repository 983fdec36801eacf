/** What one run of the bench does: its sizes and durations, from the command line. */
export interface BenchOptions {
  mode: 'quick' | 'full';
  soak: boolean;
  check: boolean;
  /** Start each board with --cpu-prof, profiles into this directory. */
  cpuProfDir: string | null;
  /** The board program to measure (default dist/board/main.js), e.g. an older build. */
  boardScript: string | null;
  /** Arguments to node for every board the bench starts (not the baselines), e.g. V8 flags. */
  boardNodeArgs: string[];
  /** Run only these parts (development aid): fleet, reports, tls, notify, history (or history-reads), store, gpu, inbox, machines-now, labels, people, agent-update, agent-footprint. */
  only: Set<string> | null;
  /** Configured fleets: the small one (GET throughput, relay) and the large one (p99 under sweep). */
  fleetSizes: [number, number];
  blackHoleShare: number;
  refusingShare: number;
  slowShare: number;
  slowMs: [number, number];
  pollTimeoutS: number;
  /** Sweeps measured after the first (cold) one. */
  sweepsMeasured: number;
  /** wrk runs in alternating rounds (board, baseline, …) of wrkSeconds; the best round counts. */
  wrkRounds: number;
  wrkSeconds: number;
  relayCalls: number;
  /** Announcing machines and the report rate that stands for them (interval 5 s). */
  announcers: number;
  reportIntervalS: number;
  reportSeconds: number;
  /** Agents reporting over TLS on kept connections: how many, how often, ramp, window. */
  tlsAgents: number;
  tlsIntervalS: number;
  tlsRampS: number;
  tlsMeasureS: number;
  /** Intervals between the last join and the window (the joins' backlog over). */
  tlsSettleIntervals: number;
  /** TLS rounds, alternating board and bare, each on a fresh server; each side's median p99 counts. */
  tlsRounds: number;
  soakSeconds: number;
  /** The inbox: announcing machines, and the sessions each lists. */
  inboxMachines: number;
  inboxSessions: number;
  /** Announced machines of each board of the machines-now scenario (with and without the fields). */
  machinesNowMachines: number;
  /** Idle containers in the private Podman of the machines-now agent rows. */
  machinesNowContainers: number;
  /** Announced machines of each board of the labels scenario (with 8 labels and without). */
  labelsMachines: number;
  /** Bells timed to their Web Push, and to their inbox row painted in Chromium. */
  pushBells: number;
  paintBells: number;
  /** The whole run is killed past this (everything it started included). */
  deadlineS: number;
}

const USAGE = `usage: npm run bench -- [--quick] [--soak] [--check] [--cpu-prof DIR] [--only PART,...]
  --quick     smaller fleets and shorter runs (about 8.5 minutes)
  --soak      the 10-minute soak only (1 minute with --quick): board RSS growth under load
  --check     verify that every figure was produced and the board answered correctly; exit 1 if not
  --cpu-prof  start each board with --cpu-prof, writing .cpuprofile files to DIR
  --only      fleet (or fleet-small, fleet-large), reports, tls, notify, history (or history-reads), store, gpu, inbox, machines-now, labels, people, agent-update, agent-footprint; and cluster (three boards on one PostgreSQL: only when named)
  --board     the board program to measure instead of dist/board/main.js (an older build, to compare)
  --board-node-arg ARG
              an argument to node for every board (not the baselines), e.g. a V8 flag; repeatable`;

/** Parses the command line; throws with the usage on anything unknown. */
export function parseOptions(argv: readonly string[]): BenchOptions {
  let quick = false;
  let soak = false;
  let check = false;
  let cpuProfDir: string | null = null;
  let only: Set<string> | null = null;
  let boardScript: string | null = null;
  const boardNodeArgs: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--quick') quick = true;
    else if (arg === '--soak') soak = true;
    else if (arg === '--check') check = true;
    else if (arg === '--cpu-prof' && argv[i + 1] !== undefined) cpuProfDir = argv[++i] ?? null;
    else if (arg === '--only' && argv[i + 1] !== undefined)
      only = new Set((argv[++i] ?? '').split(','));
    else if (arg === '--board' && argv[i + 1] !== undefined) boardScript = argv[++i] ?? null;
    else if (arg === '--board-node-arg' && argv[i + 1] !== undefined)
      boardNodeArgs.push(argv[++i] ?? '');
    else if (arg === '--help' || arg === '-h') throw new UsageError(USAGE, 0);
    else throw new UsageError(`unknown argument ${arg}\n${USAGE}`, 2);
  }
  const shared = {
    soak,
    check,
    cpuProfDir,
    only,
    boardScript,
    boardNodeArgs,
    blackHoleShare: 0.1,
    refusingShare: 0.1,
    slowShare: 0.05,
    slowMs: [200, 1500] as [number, number],
    pollTimeoutS: 3,
    reportIntervalS: 5,
    inboxSessions: 5,
  };
  return quick
    ? {
        ...shared,
        mode: 'quick',
        fleetSizes: [300, 2000],
        sweepsMeasured: 1,
        // One round: a quick run's timings are shown, not judged; the full run takes the best of 4.
        wrkRounds: 1,
        wrkSeconds: 2,
        relayCalls: 200,
        announcers: 3000,
        reportSeconds: 5,
        tlsAgents: 2000,
        tlsIntervalS: 5,
        tlsRampS: 4,
        // One interval: each agent's report once, on its kept connection.
        tlsMeasureS: 5,
        // The window waits for the last join whenever it comes: one interval more is enough for
        // every agent to have reported on its kept connection.
        tlsSettleIntervals: 1,
        // One round a side: a quick run's timings are shown, not judged; the full run's three
        // rounds show the spread.
        tlsRounds: 1,
        soakSeconds: 60,
        inboxMachines: 2000,
        machinesNowMachines: 2000,
        machinesNowContainers: 50,
        labelsMachines: 2000,
        pushBells: 10,
        paintBells: 5,
        // About twice what a quick run takes on 2 shared cores, so only a hang trips it.
        deadlineS: soak ? 240 : 720,
      }
    : {
        ...shared,
        mode: 'full',
        fleetSizes: [1000, 10_000],
        sweepsMeasured: 3,
        wrkRounds: 4,
        wrkSeconds: 3,
        relayCalls: 1000,
        announcers: 15_000,
        reportSeconds: 20,
        tlsAgents: 15_000,
        tlsIntervalS: 10,
        // 375 joins (handshakes) a second: faster, and the generator's and the board's CPU on
        // 2 cores put the generator seconds behind its schedule.
        tlsRampS: 40,
        tlsMeasureS: 30,
        tlsSettleIntervals: 1,
        // Three a side: the median is a round of its own, the other two the spread.
        tlsRounds: 3,
        soakSeconds: 600,
        inboxMachines: 10_000,
        machinesNowMachines: 10_000,
        machinesNowContainers: 200,
        labelsMachines: 10_000,
        pushBells: 50,
        paintBells: 20,
        deadlineS: soak ? 900 : 2700,
      };
}

export class UsageError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}
