// The fuzz properties both programs run, and how many cases, which seed and how long.
import fc from 'fast-check';
import { isErrorShape, problemsWith } from './fuzz-checks.js';
import type { FuzzClient } from './fuzz-client.js';
import { parseRawAnswers, rawExchange } from './fuzz-raw.js';
import { describe, type FuzzRequest, shortPrinted } from './fuzz-requests.js';

/**
 * How many cases a property runs: a few thousand per endpoint in `npm test`, many more with
 * `npm run fuzz` (which sets PANOPTES_FUZZ_RUNS).
 */
export function fuzzRuns(inNpmTest: number): number {
  const fromEnv = Number(process.env.PANOPTES_FUZZ_RUNS);
  return Number.isFinite(fromEnv) && fromEnv > 0 ? fromEnv : inNpmTest;
}

/** A fixed seed from PANOPTES_FUZZ_SEED (to replay a failure), else fast-check's own. */
export function fuzzSeed(): { seed?: number } {
  const seed = Number(process.env.PANOPTES_FUZZ_SEED);
  return process.env.PANOPTES_FUZZ_SEED && Number.isInteger(seed) ? { seed } : {};
}

/** How much longer than usual a fuzz test may run (PANOPTES_FUZZ_RUNS scales it). */
export function fuzzTimeoutMs(runs: number, perRunMs = 4): number {
  return Math.max(60_000, runs * perRunMs * 12);
}

/**
 * The raw-bytes property of both programs: each head, sent on its own connection, is answered
 * with no 5xx and only FastAPI-shaped 4xx bodies (or the connection is closed). Every answer
 * text is kept in `received` for the secret scan.
 */
export async function assertRawHeads(
  port: number,
  head: fc.Arbitrary<string | Uint8Array>,
  received: string[],
  parameters: fc.Parameters<[{ data: string | Uint8Array }]>,
): Promise<void> {
  await fc.assert(
    fc.asyncProperty(
      head.map((data) => shortPrinted({ data })),
      async ({ data }) => {
        const { text } = await rawExchange(port, data, 400);
        received.push(text);
        for (const answer of parseRawAnswers(text)) {
          const what = JSON.stringify(String(data).slice(0, 200));
          if (answer.status >= 500) throw new Error(`answered ${answer.status} to ${what}`);
          if (answer.status >= 400 && !isErrorShape(answer.text)) {
            throw new Error(
              `a ${answer.status} not of the documented shape (${answer.text}) to ${what}`,
            );
          }
        }
      },
    ),
    parameters,
  );
}

/**
 * The HTTP property of both programs: every generated request is answered well (see
 * problemsWith), and the main test address is never blocked (else only 429s would be tested).
 * `onCase` is called once per case (for counting).
 */
export async function assertAnswersWell(
  client: FuzzClient,
  arbitrary: fc.Arbitrary<FuzzRequest>,
  secrets: readonly string[],
  parameters: fc.Parameters<[FuzzRequest]>,
  onCase: () => void = () => undefined,
): Promise<void> {
  await fc.assert(
    fc.asyncProperty(arbitrary, async (req) => {
      onCase();
      const answer = await client.send(req);
      const problems = problemsWith(req, answer, secrets);
      if (!client.usesSecondAddress(req) && 'status' in answer && answer.status === 429) {
        problems.push('the main address was blocked: the fuzz would test nothing but 429');
      }
      if (problems.length > 0) {
        throw new Error(`${problems.join('; ')}\n  request: ${describe(req)}`);
      }
    }),
    parameters,
  );
}
