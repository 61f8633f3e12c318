/**
 * The one error type of appbuilder. Every layer throws `Problem`; the HTTP layer
 * turns it into an `application/problem+json` body (RFC 9457):
 * `{type, title, status, detail, errors: [{path, message}]}`.
 * `path` is a JSON pointer into the request (or the definition) naming what is wrong.
 */
export interface ProblemDetail {
  path: string;
  message: string;
}

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  412: 'Precondition Failed',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  416: 'Range Not Satisfiable',
  422: 'Unprocessable Content',
  426: 'Upgrade Required',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export class Problem extends Error {
  readonly status: number;
  readonly title: string;
  readonly errors: ProblemDetail[];
  readonly type: string;
  /** Headers the answer carries with the problem (`Allow` of a 405). */
  readonly headers: Record<string, string> = {};

  constructor(status: number, detail: string, errors: ProblemDetail[] = [], type?: string) {
    super(detail);
    this.name = 'Problem';
    this.status = status;
    this.title = TITLES[status] ?? 'Error';
    this.errors = errors;
    this.type = type ?? `https://appbuilder.dev/problems/${this.title.toLowerCase().replace(/[^a-z]+/g, '-')}`;
  }

  toJSON(): { type: string; title: string; status: number; detail: string; errors: ProblemDetail[] } {
    return { type: this.type, title: this.title, status: this.status, detail: this.message, errors: this.errors };
  }
}

export const badRequest = (detail: string, errors: ProblemDetail[] = []) => new Problem(400, detail, errors);
export const unauthorized = (detail = 'Missing or invalid credentials.') => new Problem(401, detail);
export const forbidden = (detail: string) => new Problem(403, detail);
export const notFound = (detail: string, path = '') => new Problem(404, detail, path ? [{ path, message: detail }] : []);
export const conflict = (detail: string, errors: ProblemDetail[] = []) => new Problem(409, detail, errors);
export const unprocessable = (detail: string, errors: ProblemDetail[] = []) => new Problem(422, detail, errors);
/** 405 with the `Allow` header HTTP requires (RFC 9110): the methods `path` answers. */
export function methodNotAllowed(method: string, path: string, allow: string[]): Problem {
  const problem = new Problem(405, `${method} is not a method of ${path}; it answers ${allow.join(', ')}.`);
  problem.headers.allow = allow.join(', ');
  return problem;
}
export const preconditionFailed = (detail: string) => new Problem(412, detail);
