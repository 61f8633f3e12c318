// Figma imports (DESIGN §14): import a file (by key with a token secret, or an uploaded JSON),
// see its frames, generate static HTML/CSS as a job and download the zip.
import { useState } from 'preact/hooks';
import { Field, html, Loading, Problem, Table, useAction, useLoad, when } from '../ui.js';
import { DropZone } from '../upload.js';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export function FigmaImports({ api, projectId, readOnly }) {
  const base = `/projects/${projectId}/figma/imports`;
  const imports = useLoad(() => api.get(`${base}?limit=50`), [projectId]);
  const [fileKey, setFileKey] = useState('');
  const [tokenSecret, setTokenSecret] = useState('');
  const [open, setOpen] = useState(null);
  const create = useAction();

  async function byKey(event) {
    event.preventDefault();
    const made = await create.run(() => api.post(base, { fileKey: fileKey.trim(), tokenSecret: tokenSecret.trim() }));
    if (made) {
      setOpen(made.id);
      imports.reload();
    }
  }

  async function byFile(file) {
    const made = await create.run(async () => {
      const attachment = await api.upload(`/projects/${projectId}/attachments?name=${encodeURIComponent(file.name)}`, file);
      return api.post(base, { attachmentId: attachment.id });
    });
    if (made) {
      setOpen(made.id);
      imports.reload();
    }
  }

  return html`<h2>Figma imports</h2>
    ${readOnly
      ? null
      : html`<div class="two">
          <form class="card" onSubmit=${byKey} aria-label="Import from Figma">
            <${Field} label="Figma file key" name="fileKey" value=${fileKey} onInput=${setFileKey} required />
            <${Field} label="Project secret holding the Figma token" name="tokenSecret" value=${tokenSecret} onInput=${setTokenSecret} required />
            <button type="submit" disabled=${create.busy}>Import</button>
          </form>
          <div class="card"><${DropZone} label="Or upload a Figma file JSON" onFile=${byFile} disabled=${create.busy} /></div>
        </div>`}
    <${Problem} error=${create.error ?? imports.error} />
    ${imports.loading && !imports.data
      ? html`<${Loading} />`
      : html`<${Table}
          caption="Imports"
          head=${['Name', 'Frames', 'Imported', '']}
          rows=${(imports.data?.items ?? []).map((i) => [
            i.name,
            String(i.frames?.length ?? 0),
            when(i.createdAt),
            html`<button type="button" class="small" onClick=${() => setOpen(open === i.id ? null : i.id)} aria-expanded=${open === i.id}>${open === i.id ? 'Close' : 'Frames'}</button>`,
          ])}
          empty="No imports yet."
        />`}
    ${open ? html`<${ImportDetail} api=${api} base=${base} importId=${open} readOnly=${readOnly} />` : null}`;
}

function ImportDetail({ api, base, importId, readOnly }) {
  const detail = useLoad(() => api.get(`${base}/${importId}`), [importId]);
  const [chosen, setChosen] = useState(new Set());
  const [zipUrl, setZipUrl] = useState(null);
  const generate = useAction();

  async function run() {
    setZipUrl(null);
    await generate.run(async () => {
      const { jobId } = await api.post(`${base}/${importId}/code`, chosen.size > 0 ? { frameIds: [...chosen] } : {});
      for (let i = 0; i < 600; i++) {
        try {
          const blob = await api.blob(`${base}/${importId}/code/${jobId}`);
          setZipUrl(URL.createObjectURL(blob));
          return;
        } catch (e) {
          if (e.status !== 409) throw e; // 409: still running
        }
        await sleep(500);
      }
    });
  }

  if (detail.loading && !detail.data) return html`<${Loading} />`;
  if (detail.error) return html`<${Problem} error=${detail.error} />`;
  const frames = detail.data.frames ?? [];
  return html`<section class="card" aria-label="Frames">
    <${Table}
      caption=${`Frames of ${detail.data.name}`}
      head=${['Generate', 'Frame', 'Page', 'Size']}
      rows=${frames.map((f) => [
        html`<input type="checkbox" aria-label=${`Generate ${f.name}`} checked=${chosen.has(f.nodeId)} disabled=${readOnly}
          onChange=${() => { const next = new Set(chosen); if (next.has(f.nodeId)) next.delete(f.nodeId); else next.add(f.nodeId); setChosen(next); }} />`,
        f.name,
        f.page,
        `${Math.round(f.width)} × ${Math.round(f.height)}`,
      ])}
    />
    ${readOnly ? null : html`<button type="button" onClick=${run} disabled=${generate.busy}>${generate.busy ? 'Generating…' : chosen.size > 0 ? 'Generate the chosen frames' : 'Generate every frame'}</button>`}
    ${zipUrl ? html` <a class="button" href=${zipUrl} download=${`${detail.data.name}.zip`}>Download the zip</a>` : null}
    <${Problem} error=${generate.error} />
  </section>`;
}
