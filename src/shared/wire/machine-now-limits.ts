/**
 * The bounds of the overview's lists (machine-now.ts), without the schemas: the board's poll
 * worker reads overviews with these and must not load the schema library to do it.
 */
export const CONTAINERS_MAX = 500;
export const PROCESSES_MAX = 40;
export const INTERFACES_MAX = 32;
export const TEMPS_MAX = 64;
export const SMART_MAX = 32;
/** The longest `<field>_error`. */
export const SOURCE_ERROR_TEXT_MAX = 200;
