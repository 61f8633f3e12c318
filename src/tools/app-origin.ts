/**
 * Each application has an origin of its own, never the console's or another customer's:
 * `http://{applicationId}.{appsDomain}:{port}` (docs/security.md, "Origins"). Browsers resolve
 * `*.localhost` to the loopback address (RFC 6761), so the default needs no DNS. Node clients
 * use the shared path form `/apps/{applicationId}/…` (JSON and plain text only) instead.
 */

export interface AppOriginSettings {
  /** APPBUILDER_APPS_DOMAIN (default `localhost`): an application answers on `{id}.{appsDomain}`. */
  appsDomain: string;
  /** APPBUILDER_PUBLIC_URL: when set, its scheme and port are the applications' too. */
  publicUrl: string | null;
}

const APPLICATION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export class AppOrigins {
  readonly #settings: AppOriginSettings;
  readonly #port: () => number;

  /** `port` is read when an origin is built: the listening port is known only after listen. */
  constructor(settings: AppOriginSettings, port: () => number) {
    this.#settings = settings;
    this.#port = port;
  }

  /** The origin of one application, e.g. `http://0190…ab.localhost:8080` (no trailing slash). */
  of(applicationId: string): string {
    const host = `${applicationId.toLowerCase()}.${this.#settings.appsDomain}`;
    if (this.#settings.publicUrl) {
      const url = new URL(this.#settings.publicUrl);
      return `${url.protocol}//${host}${url.port ? `:${url.port}` : ''}`;
    }
    return `http://${host}:${this.#port()}`;
  }

  /** The application a `Host` header names on its own origin, else null (the shared origin). */
  applicationOf(hostHeader: string | undefined): string | null {
    if (!hostHeader) return null;
    const host = hostHeader.toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '');
    const suffix = `.${this.#settings.appsDomain.toLowerCase()}`;
    if (!host.endsWith(suffix)) return null;
    const label = host.slice(0, -suffix.length);
    return APPLICATION_ID.test(label) ? label : null;
  }
}
