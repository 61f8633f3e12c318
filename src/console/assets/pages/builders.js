// Builders of the customer and their tokens (DESIGN §10): owners manage them; a token's
// secret is shown once.
import { useState } from 'preact/hooks';
import { Field, html, Loading, Problem, Table, useAction, useLoad, when } from '../ui.js';

const ROLES = ['viewer', 'editor', 'admin', 'owner'];

function Tokens({ api, builder }) {
  const tokens = useLoad(() => api.get(`/builders/${builder.id}/tokens?limit=50`), [builder.id]);
  const [name, setName] = useState('console');
  const [fresh, setFresh] = useState(null);
  const act = useAction();
  async function create(event) {
    event.preventDefault();
    const made = await act.run(() => api.post(`/builders/${builder.id}/tokens`, { name }));
    if (made) {
      setFresh(made);
      tokens.reload();
    }
  }
  async function revoke(token) {
    await act.run(() => api.delete(`/builders/${builder.id}/tokens/${token.id}`));
    tokens.reload();
  }
  return html`<section class="card" aria-label=${`Tokens of ${builder.name}`}>
    <h3>Tokens of ${builder.name}</h3>
    <${Table}
      caption="Tokens"
      head=${['Name', 'Created', 'Expires', 'Last used', '']}
      rows=${(tokens.data?.items ?? []).map((t) => [t.name, when(t.createdAt), when(t.expiresAt), when(t.lastUsedAt), t.revokedAt ? 'revoked' : html`<button type="button" class="small danger" onClick=${() => revoke(t)}>Revoke</button>`])}
      empty="No tokens."
    />
    <form class="inline" onSubmit=${create} aria-label="Create a token">
      <${Field} label="Token name" name="tokenName" value=${name} onInput=${setName} required />
      <button type="submit" disabled=${act.busy}>Create token</button>
    </form>
    ${fresh
      ? html`<div class="secret-once" role="status">
          <p>The token, shown this once (sign in with it and the API key <code>${api.session.apiKey}</code>):</p>
          <output class="token" aria-label="The new token">${fresh.token}</output>
        </div>`
      : null}
    <${Problem} error=${act.error ?? tokens.error} />
  </section>`;
}

export function Builders({ api, me }) {
  const builders = useLoad(() => api.get('/builders?limit=100'), []);
  const [form, setForm] = useState({ name: '', email: '', role: 'viewer' });
  const [open, setOpen] = useState(null);
  const create = useAction();
  const canManage = me.role === 'owner' && !me.projectIds;

  async function submit(event) {
    event.preventDefault();
    const made = await create.run(() => api.post('/builders', form));
    if (made) {
      setForm({ name: '', email: '', role: 'viewer' });
      setOpen(made.id);
      builders.reload();
    }
  }

  if (!canManage) return html`<h1>Builders</h1><p class="notice" role="note">Only an owner manages builders and their tokens.</p>`;
  const at = (member) => (create.error?.problem?.errors ?? []).filter((e) => e.path === `/${member}`).map((e) => e.message);
  return html`<h1>Builders</h1>
    <form class="inline card" onSubmit=${submit} aria-label="Add a builder">
      <${Field} label="Name" name="builderName" value=${form.name} onInput=${(v) => setForm({ ...form, name: v })} required errors=${at('name')} />
      <${Field} label="Email" name="builderEmail" type="email" value=${form.email} onInput=${(v) => setForm({ ...form, email: v })} required errors=${at('email')} />
      <${Field} label="Role" name="builderRole" value=${form.role} options=${ROLES} onInput=${(v) => setForm({ ...form, role: v })} />
      <button type="submit" disabled=${create.busy}>Add builder</button>
    </form>
    <${Problem} error=${create.error && at('name').length + at('email').length === 0 ? create.error : null} />
    <${Problem} error=${builders.error} />
    ${builders.loading && !builders.data
      ? html`<${Loading} />`
      : html`<${Table}
          caption="Builders"
          head=${['Name', 'Email', 'Role', 'Projects', 'Last active', '']}
          rows=${(builders.data?.items ?? []).map((b) => [
            b.name,
            b.email,
            b.role,
            b.projectIds ? `${b.projectIds.length}` : 'all',
            when(b.lastActiveAt),
            html`<button type="button" class="small" onClick=${() => setOpen(open === b.id ? null : b.id)} aria-expanded=${open === b.id}>Tokens</button>`,
          ])}
        />`}
    ${open ? html`<${Tokens} key=${open} api=${api} builder=${(builders.data?.items ?? []).find((b) => b.id === open) ?? { id: open, name: '' }} />` : null}`;
}
