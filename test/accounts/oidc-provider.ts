// A real OpenID provider for the tests (`oidc-provider`, the certified Node implementation) on a
// loopback port, with a tiny interaction handler standing in for its login and consent pages:
// whoever the test names in `signInAs` logs in and consents to every scope asked.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface TestAccount {
  sub: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
}

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The account the next interaction logs in. */
  signInAs(account: TestAccount): void;
  close(): Promise<void>;
}

/** `redirectUris`: the client's callbacks (each served version has its own). */
export async function startTestProvider(redirectUris: string[]): Promise<TestProvider> {
  const accounts = new Map<string, TestAccount>();
  let current: TestAccount | null = null;
  const clientId = 'appbuilder-test';
  const clientSecret = 'a-test-client-secret-of-enough-length';

  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const provider = new Provider(issuer, {
    clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: redirectUris, grant_types: ['authorization_code'], response_types: ['code'] }],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    findAccount: (_ctx, sub) => {
      const account = accounts.get(sub);
      if (!account) return undefined;
      return { accountId: sub, claims: () => ({ ...account }) };
    },
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: ['test-cookie-key-0123456789'] },
  });
  const callback = provider.callback();

  server.on('request', (req, res) => {
    if (!req.url?.startsWith('/interaction/')) return callback(req, res);
    void (async () => {
      const details = await provider.interactionDetails(req, res);
      if (details.prompt.name === 'login') {
        if (!current) throw new Error('the test named no account to sign in');
        accounts.set(current.sub, current);
        await provider.interactionFinished(req, res, { login: { accountId: current.sub } }, { mergeWithLastSubmission: false });
        return;
      }
      const grant = new provider.Grant({ accountId: details.session!.accountId, clientId });
      grant.addOIDCScope(String(details.params.scope));
      await provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
    })().catch((error: unknown) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  });

  return {
    issuer,
    clientId,
    clientSecret,
    signInAs: (account) => {
      current = account;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
