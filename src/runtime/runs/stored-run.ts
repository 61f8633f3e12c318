// What a run record keeps (stored runs and test-run answers): every value at most ~1 KB, cut
// visibly ("…(truncated, 147000 bytes)"), fields named like credentials (password, secret, token,
// apiKey, authorization, cookie, ...) replaced by "[redacted]" at any depth, and every header
// value of an http.request step's output redacted. The HTTP answer of a trigger is built from the
// full run before this; only error messages are cut there too (truncatedText).
import type { JsonValue } from '../../expressions/index.ts';
import type { HttpResponse, RunError, StepRecord } from '../actions/types.ts';
import type { Run, RunInputRecord } from './store.ts';
import { currentActor } from '../../access/actor-context.ts';

/** Bytes (UTF-8) of one value kept in a run record. */
export const MAX_STORED_VALUE_BYTES = 1024;
export const REDACTED = '[redacted]';

/** Field names whose values are never kept (matched case-insensitively, anywhere in the name). */
const SECRET_NAME = /passw(or)?d|passphrase|secret|token|api[-_]?key|authorization|cookie|credential|private[-_]?key/i;

const TRUNCATION_MARK = /…\(truncated, \d+ bytes\)$/;

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** `text` cut to `max` UTF-8 bytes, with a visible mark naming its full size. */
export function truncatedText(text: string, max = MAX_STORED_VALUE_BYTES): string {
  // Cheap test first: a UTF-16 unit is at most 3 UTF-8 bytes.
  if (text.length * 3 <= max) return text;
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= max) return text;
  // Already cut (an error message cut in the run, stored afterwards): kept as it is.
  const mark = TRUNCATION_MARK.exec(text);
  if (mark && Buffer.byteLength(text.slice(0, mark.index), 'utf8') <= max) return text;
  // Cut on a character boundary: decoding a byte prefix may end in a replacement character; drop it.
  const head = Buffer.from(text, 'utf8').subarray(0, max).toString('utf8').replace(/\uFFFD$/, '');
  return `${head}…(truncated, ${bytes} bytes)`;
}

/** Secret-named fields replaced at any depth. */
export function redacted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redacted);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, isSecretName(name) ? REDACTED : redacted(inner)]));
  }
  return value;
}

/**
 * One value as a run record keeps it: redacted, and when its JSON is longer than the limit,
 * the start of that JSON as a string with the truncation mark (a long string is cut as such).
 */
export function storedValue(value: unknown): JsonValue {
  const clean = redacted(value) as JsonValue;
  if (typeof clean === 'string') return truncatedText(clean);
  if (clean === null || typeof clean !== 'object') return clean;
  const json = JSON.stringify(clean);
  return json.length * 3 <= MAX_STORED_VALUE_BYTES || Buffer.byteLength(json, 'utf8') <= MAX_STORED_VALUE_BYTES ? clean : truncatedText(json);
}

/** Each entry of an object kept on its own (the run's shape stays: input.initialState stays an object). */
function storedEntries(values: Record<string, unknown>): Record<string, JsonValue> {
  return Object.fromEntries(Object.entries(values).map(([name, value]) => [name, isSecretName(name) ? REDACTED : storedValue(value)]));
}

export function storedError(error: RunError): RunError {
  return { ...error, message: truncatedText(error.message) };
}

function storedStep(step: StepRecord): StepRecord {
  const kept: StepRecord = { ...step };
  if (step.output !== undefined) {
    let output: unknown = step.output;
    // Header values of http.request (the response's, e.g. set-cookie) are never kept.
    if (step.effect === 'http.request' && isObject(output) && isObject(output.headers)) {
      output = { ...output, headers: Object.fromEntries(Object.keys(output.headers).map((name) => [name, REDACTED])) };
    }
    kept.output = isObject(output) ? storedEntries(output) : storedValue(output);
  }
  if (step.error) kept.error = storedError(step.error);
  return kept;
}

function storedInput(input: RunInputRecord): RunInputRecord {
  const { request, event } = input;
  return {
    ...input,
    initialState: storedEntries(input.initialState),
    ...(request ? { request: { ...storedEntries(request), ...(isObject(request.headers) ? { headers: storedEntries(request.headers) } : {}) } } : {}),
    ...(event ? { event: storedEntries(event) } : {}),
  };
}

function storedResponse(response: HttpResponse): HttpResponse {
  const headers = Object.fromEntries(Object.entries(response.headers).map(([name, value]) => [name, isSecretName(name) ? REDACTED : truncatedText(value)]));
  return { ...response, headers, body: storedValue(response.body) };
}

/** The run as it is stored and shown: see the file comment. */
export function storedRun(run: Run): Run {
  return {
    ...run,
    input: storedInput(run.input),
    steps: run.steps.map(storedStep),
    result: storedValue(run.result),
    ...(run.response ? { response: storedResponse(run.response) } : {}),
    ...(run.error ? { error: storedError(run.error) } : {}),
    // A run started by a management request (a test run) names its caller (DESIGN §10).
    createdBy: run.createdBy ?? currentActor(),
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
