/** Consistency of triggers: ids, actions started, HTTP paths and route clashes, schedules. */
import { CronExpressionParser } from 'cron-parser';
import type { ProblemDetail } from '../../errors.ts';
import { resourceName } from '../naming.ts';
import type { AppDefinition, HttpTrigger } from '../schema.ts';
import { duplicates, pointer } from './pointer.ts';

/** `/seg/:param/...`: literal segments and `:name` params; `/` alone is the root. */
const PATH_SHAPE = /^(?:\/|(?:\/(?::[A-Za-z_][A-Za-z0-9_]*|[A-Za-z0-9._~-]+))+)$/;

/** The route key of a template: params normalised, so `/a/:x` and `/a/:y` meet. */
export function normalisePath(path: string): string {
  return path.replace(/\/:[^/]+/g, '/:');
}

/**
 * Routes served beside the generated API's router (realtime, DESIGN §17): a trigger there would
 * never be reached, even with matchSelectors.
 */
const OUTSIDE_ROUTER: ReadonlySet<string> = new Set(['GET /realtime', 'GET /realtime/ws']);

/** The routes of the generated API that are not a model's. */
const OWN_ROUTES: ReadonlySet<string> = new Set(['POST /auth/signup', 'POST /auth/login', 'GET /auth/me', 'GET /openapi.json', ...OUTSIDE_ROUTER]);

/** The methods a model's resource serves on its collection (`/toDos`) and on one record (`/toDos/:`). */
const COLLECTION_METHODS: ReadonlySet<string> = new Set(['GET', 'POST']);
const RECORD_METHODS: ReadonlySet<string> = new Set(['GET', 'PATCH', 'DELETE']);

/** The routes the generated API serves itself (DESIGN §6, §17), as `METHOD normalised-path`. */
export function generatedRoutes(def: AppDefinition): Set<string> {
  const routes = new Set(OWN_ROUTES);
  for (const model of def.models) {
    const r = resourceName(model.name);
    if (!r) continue;
    for (const method of COLLECTION_METHODS) routes.add(`${method} /${r}`);
    for (const method of RECORD_METHODS) routes.add(`${method} /${r}/:`);
  }
  return routes;
}

/**
 * Whether `key` (`METHOD normalised-path`) is in `generatedRoutes(def)`, without building them
 * all (five per model): `resources` are the models' resource names. A resource name is letters
 * and digits only, so a path names at most one.
 */
function isGeneratedRoute(key: string, resources: () => ReadonlySet<string>): boolean {
  if (OWN_ROUTES.has(key)) return true;
  const match = /^([A-Z]+) \/([^/]+)(\/:)?$/.exec(key);
  if (!match) return false;
  const [, method, resource, record] = match;
  return (record ? RECORD_METHODS : COLLECTION_METHODS).has(method) && resources().has(resource);
}

const selected = (h: HttpTrigger): boolean => (h.matchSelectors?.length ?? 0) > 0;

export function checkTriggers(def: AppDefinition): ProblemDetail[] {
  const problems: ProblemDetail[] = [];
  const triggers = def.triggers;
  for (const { index, first } of duplicates(triggers, (t) => t.trigger.id)) {
    problems.push({
      path: pointer('triggers', index, 'trigger', 'id'),
      message: `Duplicate trigger id '${triggers[index].trigger.id}' (also ${pointer('triggers', first)}).`,
    });
  }
  const actionIds = new Set(def.actions.map((a) => a.id));
  let resources: Set<string> | undefined;
  const resourceNames = () => (resources ??= new Set(def.models.map((m) => resourceName(m.name)).filter((r) => r !== '')));
  const routes = new Map<string, { index: number; trigger: HttpTrigger }>();

  triggers.forEach((t, i) => {
    if (!actionIds.has(t.actionId)) {
      problems.push({ path: pointer('triggers', i, 'actionId'), message: `No action has the id '${t.actionId}'.` });
    }
    const trigger = t.trigger;
    if (trigger.type === 'event') {
      if (trigger.eventName === 'schedule') problems.push(...checkSchedule(trigger.payload, i));
      return;
    }
    const at = pointer('triggers', i, 'trigger', 'path');
    if (!PATH_SHAPE.test(trigger.path)) {
      problems.push({ path: at, message: `The path '${trigger.path}' is not shaped like /some/path/:paramName.` });
      return;
    }
    const params = [...trigger.path.matchAll(/\/:([^/]+)/g)].map((m) => m[1]);
    for (const { index } of duplicates(params, (p) => p)) {
      problems.push({ path: at, message: `The path parameter ':${params[index]}' appears twice.` });
    }
    const key = `${trigger.method} ${normalisePath(trigger.path)}`;
    // With matchSelectors a trigger takes the requests it selects; the generated route the rest.
    if (OUTSIDE_ROUTER.has(key)) {
      problems.push({ path: at, message: `${trigger.method} ${trigger.path} is the generated API's realtime endpoint; choose another path.` });
      return;
    }
    if (isGeneratedRoute(key, resourceNames) && !selected(trigger)) {
      problems.push({
        path: at,
        message: `${trigger.method} ${trigger.path} clashes with a route the generated API serves itself; add matchSelectors to take only some of its requests.`,
      });
      return;
    }
    const earlier = routes.get(key);
    if (!earlier) {
      routes.set(key, { index: i, trigger });
      return;
    }
    if (!selected(trigger) || !selected(earlier.trigger)) {
      problems.push({
        path: at,
        message: `${trigger.method} ${trigger.path} is also served by ${pointer('triggers', earlier.index)}; triggers sharing a method and path need matchSelectors on both.`,
      });
    }
  });
  return problems;
}

/**
 * `eventName: 'schedule'` needs `payload.cron` (5 or 6 fields) and an optional string `timezone`.
 * Both are parsed at save time by cron-parser, as pg-boss parses them when the schedule is stored
 * (same calls, same options), so what is saved is what the scheduler will accept.
 */
function checkSchedule(payload: Record<string, unknown>, i: number): ProblemDetail[] {
  const at = pointer('triggers', i, 'trigger', 'payload');
  const problems: ProblemDetail[] = [];
  const cron = payload.cron;
  if (typeof cron !== 'string' || ![5, 6].includes(cron.trim().split(/\s+/).length)) {
    problems.push({ path: `${at}/cron`, message: 'A schedule trigger needs payload.cron, a cron expression of 5 or 6 fields.' });
  } else {
    const refused = parseError(() => CronExpressionParser.parse(cron, { tz: 'UTC', strict: false }));
    if (refused) problems.push({ path: `${at}/cron`, message: `The scheduler cannot read the cron expression ${JSON.stringify(cron)}: ${refused}.` });
  }
  if (payload.timezone !== undefined && typeof payload.timezone !== 'string') {
    problems.push({ path: `${at}/timezone`, message: 'payload.timezone must be a time-zone name such as Europe/Paris.' });
  } else if (typeof payload.timezone === 'string') {
    // pg-boss's own zone check: a reference date makes cron-parser build a date in the zone.
    const zone = payload.timezone;
    if (parseError(() => CronExpressionParser.parse('* * * * *', { tz: zone, strict: false, currentDate: new Date() }))) {
      problems.push({ path: `${at}/timezone`, message: `The scheduler does not know the time zone ${JSON.stringify(zone)}; use a name such as Europe/Paris.` });
    }
  }
  return problems;
}

/** The parser's message when `parse` throws; null when it parses. */
function parseError(parse: () => unknown): string | null {
  try {
    parse();
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
