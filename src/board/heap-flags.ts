import { setFlagsFromString } from 'node:v8';

/**
 * V8 settings of the board's process, set before anything else runs (imported first by the
 * programs that run a board: board/main.ts, start/main.ts).
 *
 * No allocation-site pretenuring: under a flood of reports V8 tenured the report path's
 * allocation sites, so each report's short-lived copies were born old and only a mark-compact
 * freed them; without it the RSS peak of a flood is a fifth lower (docs/internals/decisions.md).
 * Set here, at run time, before the board allocates anything.
 */
setFlagsFromString('--no-allocation-site-pretenuring');
