import { setFlagsFromString } from 'node:v8';

/**
 * V8 settings of the board's process, set before anything else runs (imported first by the
 * programs that run a board: board/main.ts, start/main.ts).
 *
 * No allocation-site pretenuring (issue 26, round 3's eleventh pass). V8 watches what each
 * allocation site's objects do: when most of a site's young objects outlive a minor
 * collection, it makes the site allocate straight into the old generation. At start, and while
 * a fleet first announces, the report path's objects are kept (a machine's first metrics, its
 * sessions), so V8 tenures those sites; afterwards each report's copies are only compared with
 * what the machine keeps and dropped at once, but they go on being born old, where only a
 * mark-compact frees them. Under a report flood that was ~45 MB of old-generation garbage in
 * 35 s, and 70 MB of RSS at the phase's peak (docs/performance-round3.md). Without
 * pretenuring they die young; what the board does keep is promoted by the scavenger as any
 * survivor is. The flag is read when V8 decides, so setting it at run time takes effect.
 */
setFlagsFromString('--no-allocation-site-pretenuring');
