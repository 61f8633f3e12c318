// The OpenID Connect providers of an application (DESIGN §18), declared by the builder as
// application configuration (§11) rather than in the definition: a provider is a deployment
// concern (its client id differs between staging and production, its secret must never sit in a
// versioned definition), and variables and secrets take effect on the next request without a new
// version. The variable `AUTH_PROVIDERS` holds a JSON array of providers; each names the secret
// that holds its client secret. Outbound requests to a provider pass the same address guard as
// `http.request` (runtime/actions/http/address-guard.ts).
import { createHash } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type * as oidc from 'openid-client';
import { Problem, badRequest, notFound } from '../../errors.ts';
import { allowListFromEnv, resolveChecked } from '../actions/http/address-guard.ts';
import { NAME_PATTERN } from '../../secrets/names.ts';
import type { AppValues } from '../../secrets/app-values.ts';

/** The variable that declares the providers. */
export const PROVIDERS_VARIABLE = 'AUTH_PROVIDERS';
/** Further origins (comma separated) a sign-in may send the browser back to with its tokens. */
export const REDIRECT_ORIGINS_VARIABLE = 'AUTH_REDIRECT_ORIGINS';

// Imported with an app's first provider sign-in: most apps declare no provider (issue 28).
type OpenIdClient = typeof oidc;
let openIdClient: Promise<OpenIdClient> | undefined;
export function loadOpenIdClient(): Promise<OpenIdClient> {
  openIdClient ??= import('openid-client');
  return openIdClient;
}

const Url = Type.String({ pattern: '^https?://', maxLength: 2000 });

export const ProviderSchema = Type.Object(
  {
    name: Type.String({ pattern: '^[a-z][a-z0-9-]{0,31}$', description: 'Used in the route: /auth/oauth/{name}.' }),
    displayName: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    /** The issuer: discovered at `{issuer}/.well-known/openid-configuration` unless the endpoints are given. */
    issuer: Url,
    clientId: Type.String({ minLength: 1, maxLength: 500 }),
    /** The name of the application secret holding the client secret (absent: a public client, PKCE alone). */
    clientSecret: Type.Optional(Type.String({ pattern: NAME_PATTERN })),
    authorizationEndpoint: Type.Optional(Url),
    tokenEndpoint: Type.Optional(Url),
    jwksUri: Type.Optional(Url),
    scopes: Type.Optional(Type.Array(Type.String({ pattern: '^[\\x21-\\x7e]+$' }), { maxItems: 20 })),
  },
  { additionalProperties: false },
);

export type ProviderSettings = Static<typeof ProviderSchema>;

const ProvidersSchema = Type.Array(ProviderSchema, { maxItems: 20 });

/** A provider as the routes use it: its settings and its client secret. */
export interface Provider extends ProviderSettings {
  secret?: string;
}

function configurationProblem(detail: string, errors: Array<{ path: string; message: string }>): Problem {
  // The builder's configuration is wrong, not the end user's request: 409 names the variable's members.
  return new Problem(409, `The application's ${PROVIDERS_VARIABLE} variable is not usable: ${detail}`, errors);
}

/** Every provider the application declares (none when the variable is unset). */
export function providersOf(values: AppValues | undefined): Provider[] {
  const raw = values?.env[PROVIDERS_VARIABLE];
  if (raw === undefined || raw.trim() === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    throw configurationProblem('it is not JSON.', [{ path: `/${PROVIDERS_VARIABLE}`, message: (error as Error).message }]);
  }
  if (!Value.Check(ProvidersSchema, parsed)) {
    const errors = [...Value.Errors(ProvidersSchema, parsed)].slice(0, 10).map((e) => ({ path: `/${PROVIDERS_VARIABLE}${e.path}`, message: e.message }));
    throw configurationProblem('it is not an array of providers.', errors);
  }
  const names = new Set<string>();
  return parsed.map((settings, i) => {
    if (names.has(settings.name)) throw configurationProblem(`two providers are named '${settings.name}'.`, [{ path: `/${PROVIDERS_VARIABLE}/${i}/name`, message: 'is taken' }]);
    names.add(settings.name);
    if (settings.authorizationEndpoint && (!settings.tokenEndpoint || !settings.jwksUri)) {
      throw configurationProblem('explicit endpoints need tokenEndpoint and jwksUri too.', [{ path: `/${PROVIDERS_VARIABLE}/${i}`, message: 'needs tokenEndpoint and jwksUri with authorizationEndpoint' }]);
    }
    const secret = settings.clientSecret === undefined ? undefined : values?.secrets[settings.clientSecret];
    if (settings.clientSecret !== undefined && secret === undefined) {
      throw configurationProblem(`the secret ${settings.clientSecret} is not set.`, [{ path: `/${PROVIDERS_VARIABLE}/${i}/clientSecret`, message: 'names no secret of the application' }]);
    }
    return { ...settings, ...(secret === undefined ? {} : { secret }) };
  });
}

export function providerNamed(values: AppValues | undefined, name: string): Provider {
  const provider = providersOf(values).find((p) => p.name === name);
  if (!provider) throw notFound(`No sign-in provider named '${name}' in this application.`, '/provider');
  return provider;
}

/**
 * Outbound requests to a provider: the host must pass the address guard (private and loopback
 * addresses only when APPBUILDER_HTTP_ALLOW names them). The check resolves the name just before
 * fetch connects; unlike http.request the connection is not pinned to the checked address (fetch
 * resolves again), a window we accept for an issuer the builder names and the guard already vetted.
 */
const guardedFetch: oidc.CustomFetch = async (url, options) => {
  try {
    await resolveChecked(new URL(url), allowListFromEnv());
  } catch (error) {
    throw new Problem(502, `The sign-in provider cannot be reached: ${(error as Error).message}`);
  }
  return fetch(url, options);
};

/** A plain-http issuer is allowed only when its host is listed in APPBUILDER_HTTP_ALLOW (a provider on a test or development machine). */
function insecureAllowed(issuer: string): boolean {
  const url = new URL(issuer);
  return url.protocol === 'http:' && allowListFromEnv().includes(url.hostname);
}

interface Cached {
  at: number;
  config: Promise<oidc.Configuration>;
}

/** Discovered configurations, by application, provider and settings; rediscovered after this long. */
const DISCOVERY_TTL_MS = 10 * 60_000;
const MAX_CACHED = 1000;
const cache = new Map<string, Cached>();

function cacheKey(applicationId: string, provider: Provider): string {
  return `${applicationId} ${createHash('sha256').update(JSON.stringify(provider)).digest('base64url')}`;
}

async function configure(provider: Provider): Promise<oidc.Configuration> {
  const insecure = insecureAllowed(provider.issuer);
  if (new URL(provider.issuer).protocol === 'http:' && !insecure) {
    throw badRequest(`The provider ${provider.name} has a plain-http issuer; use https (or list its host in APPBUILDER_HTTP_ALLOW for a test provider).`);
  }
  const openid = await loadOpenIdClient();
  const metadata = provider.secret === undefined ? { token_endpoint_auth_method: 'none' } : { client_secret: provider.secret };
  const auth = provider.secret === undefined ? openid.None() : openid.ClientSecretBasic(provider.secret);
  let config: oidc.Configuration;
  if (provider.authorizationEndpoint) {
    config = new openid.Configuration(
      { issuer: provider.issuer, authorization_endpoint: provider.authorizationEndpoint, token_endpoint: provider.tokenEndpoint, jwks_uri: provider.jwksUri },
      provider.clientId,
      metadata,
      auth,
    );
    config[openid.customFetch] = guardedFetch;
    if (insecure) openid.allowInsecureRequests(config);
  } else {
    try {
      config = await openid.discovery(new URL(provider.issuer), provider.clientId, metadata, auth, {
        [openid.customFetch]: guardedFetch,
        ...(insecure ? { execute: [openid.allowInsecureRequests] } : {}),
      });
    } catch (error) {
      if (error instanceof Problem) throw error;
      throw new Problem(502, `The discovery of the provider ${provider.name} failed: ${(error as Error).message}`);
    }
  }
  config.timeout = 10;
  return config;
}

/** The provider's client configuration (discovered once and kept for ten minutes). */
export function configurationOf(applicationId: string, provider: Provider): Promise<oidc.Configuration> {
  const key = cacheKey(applicationId, provider);
  const now = Date.now();
  const known = cache.get(key);
  if (known && now - known.at < DISCOVERY_TTL_MS) return known.config;
  if (cache.size >= MAX_CACHED) cache.clear();
  const config = configure(provider);
  cache.set(key, { at: now, config });
  config.catch(() => cache.delete(key));
  return config;
}

/** `scheme://host[:port]` of an http(s) URL, else null (`javascript:` and `data:` URLs have the origin `null`). */
export function httpOrigin(value: string): string | null {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.origin : null;
  } catch {
    return null;
  }
}

/**
 * The origins a sign-in may return the browser to, tokens in hand: the application's own and those
 * its AUTH_REDIRECT_ORIGINS variable lists (a comma list of `scheme://host[:port]`, matched exactly).
 * Never the service's shared origin, where every other customer's app answers too.
 */
export function allowedRedirectOrigins(values: AppValues | undefined, ownOrigin: string): Set<string> {
  const listed = (values?.env[REDIRECT_ORIGINS_VARIABLE] ?? '').split(/[\s,]+/).filter(Boolean);
  const origins = new Set([ownOrigin]);
  for (const entry of listed) {
    // An entry that is not an http(s) origin allows nothing.
    const origin = httpOrigin(entry);
    if (origin) origins.add(origin);
  }
  return origins;
}
