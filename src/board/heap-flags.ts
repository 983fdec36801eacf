import { setFlagsFromString } from 'node:v8';

/**
 * V8 settings of the board's process, set before anything else runs (imported first by the
 * programs that run a board: board/main.ts, start/main.ts).
 *
 * No allocation-site pretenuring (issue 26, round 3's eleventh pass). V8 makes an allocation
 * site allocate straight into the old generation once most of its young objects outlive a
 * scavenge. Under the bench's keep-alive flood of reports, between two mark-compacts 36 s
 * apart, the old generation grew by 106 MB while the scavenges promoted 38 MB (--trace-gc-nvp):
 * the other ~68 MB was allocated there directly, garbage that only a mark-compact frees. My
 * reading, not traced site by site: the report path's sites were tenured while the fleet first
 * announced (a machine's first metrics and sessions are kept), and each later report's copies,
 * compared with what the machine keeps and dropped, went on being born old. With the flag, the
 * same window grew by 24 MB with 19 MB promoted, and the flood phase's RSS peak was 303-320 MB
 * instead of 375-400 (`npm run bench -- --only reports`). Set here, at run time, it
 * takes effect: those measurements were made with the flag set so.
 */
setFlagsFromString('--no-allocation-site-pretenuring');
