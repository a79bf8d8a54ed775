/**
 * The part of autocannon's API the bench uses. autocannon ships no type declarations and @types/autocannon is not a
 * dependency (docs/architecture.md#performance-targets: autocannon is the one devDependency the bench adds), so the
 * used surface is declared here.
 */
declare module "autocannon" {
  namespace autocannon {
    interface Options {
      url: string;
      connections?: number;
      /** Seconds. */
      duration?: number;
      /** Seconds before a request counts as timed out. */
      timeout?: number;
      method?: string;
      headers?: Record<string, string>;
    }

    /** Percentiles of one histogram (autocannon's `hdr-histogram-percentiles-obj` shape). */
    interface Histogram {
      average: number;
      mean: number;
      stddev: number;
      min: number;
      max: number;
      total?: number;
      p50: number;
      p90: number;
      p97_5: number;
      p99: number;
    }

    interface Result {
      /** Seconds. */
      duration: number;
      errors: number;
      timeouts: number;
      non2xx: number;
      "2xx": number;
      statusCodeStats: Record<string, { count: number }>;
      /** Milliseconds. */
      latency: Histogram;
      /** Requests per second, sampled each second; `total` is the number of completed requests. */
      requests: Histogram & { sent: number };
      /** Bytes per second. */
      throughput: Histogram;
    }
  }

  function autocannon(options: autocannon.Options): Promise<autocannon.Result>;
  export = autocannon;
}
