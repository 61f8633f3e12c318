// Sign in with an API client's key and secret, or with a builder token and its API key.
import { useState } from 'preact/hooks';
import { Api, signInWithClient } from '../api.js';
import { Field, html, Problem, useAction } from '../ui.js';

export function SignIn({ config, onSignIn }) {
  const [mode, setMode] = useState('client');
  const [apiKey, setApiKey] = useState('');
  const [secret, setSecret] = useState('');
  const action = useAction();

  async function submit(event) {
    event.preventDefault();
    await action.run(async () => {
      const session = mode === 'client' ? await signInWithClient(config, apiKey.trim(), secret) : { apiKey: apiKey.trim(), token: secret.trim() };
      // Checked before it is kept: a wrong builder token fails here, not on the next page.
      await new Api(config, session).get('/builders/me');
      onSignIn(session);
    });
  }

  return html`<section class="card narrow" aria-labelledby="sign-in-title">
    <h1 id="sign-in-title">Sign in to appbuilder</h1>
    <form onSubmit=${submit}>
      <fieldset class="choice">
        <legend>Sign in with</legend>
        <label><input type="radio" name="mode" checked=${mode === 'client'} onChange=${() => setMode('client')} /> API client credentials</label>
        <label><input type="radio" name="mode" checked=${mode === 'builder'} onChange=${() => setMode('builder')} /> A builder token</label>
      </fieldset>
      <${Field} label="API key" name="apiKey" value=${apiKey} onInput=${setApiKey} required autocomplete="username" />
      <${Field} label=${mode === 'client' ? 'Secret' : 'Builder token'} name="secret" type="password" value=${secret} onInput=${setSecret} required autocomplete="current-password" />
      <${Problem} error=${action.error} />
      <button type="submit" disabled=${action.busy}>${action.busy ? 'Signing in…' : 'Sign in'}</button>
    </form>
  </section>`;
}
