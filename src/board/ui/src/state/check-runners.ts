// The runner names of the board's own runs and of push beats (as GET /api/checks sends them).
export const BOARD_RUNNER = '@board';
export const PUSH_RUNNER = '@push';
