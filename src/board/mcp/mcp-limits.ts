/**
 * What bounds one MCP answer. A page holds at most `PAGE_ITEMS_MAX` items and `PAGE_BYTES_MAX`
 * bytes of their JSON; a tool's whole answer (the page as structured content and again as JSON
 * text) at most `CALL_BYTES_MAX`; a request at most `BATCH_MAX` messages. So one request is
 * answered in at most about BATCH_MAX × CALL_BYTES_MAX (5 MiB), whatever the fleet's size.
 */
export const MCP_LIMITS = {
  BATCH_MAX: 10,
  PAGE_ITEMS_MAX: 1000,
  PAGE_BYTES_MAX: 128 * 1024,
  CALL_BYTES_MAX: 512 * 1024,
} as const;
