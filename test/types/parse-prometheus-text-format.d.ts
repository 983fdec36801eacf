declare module 'parse-prometheus-text-format' {
  /** Parses Prometheus' text exposition format into metric families. */
  export default function parsePrometheusTextFormat(text: string): unknown[];
}
