// The hop count of requests between generated apps. Every outbound http.request carries
// `x-appbuilder-hops: n + 1`, where n is the count of the request that started the run (0 when
// it had none, or when the run did not start from a request). An HTTP trigger reached through
// more than MAX_TRIGGER_HOPS hops answers 508 Loop Detected instead of running its action, so an
// action that calls its own app (directly or through another app) stops after a few rounds
// instead of recursing without bound.

export const HOPS_HEADER = 'x-appbuilder-hops';
export const MAX_TRIGGER_HOPS = 3;

/** The hop count a request arrived with: the largest count it names (repeated headers too), else 0. */
export function hopsOf(headers: Readonly<Record<string, unknown>> | undefined): number {
  const raw = headers?.[HOPS_HEADER];
  const values = (Array.isArray(raw) ? raw : [raw]).filter((v): v is string => typeof v === 'string');
  const counts = values.flatMap((v) => v.match(/\d+/g) ?? []).map((digits) => Math.min(Number(digits), 1_000_000));
  return counts.length === 0 ? 0 : Math.max(...counts);
}
