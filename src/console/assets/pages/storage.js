// The customer's storage (DESIGN §12): upload with drag and drop and progress, download,
// signed links, delete.
import { useState } from 'preact/hooks';
import { Field, html, Loading, Problem, Table, useAction, useLoad, when } from '../ui.js';
import { DropZone } from '../upload.js';

export function Storage({ api, readOnly }) {
  const [prefix, setPrefix] = useState('');
  const [shown, setShown] = useState('');
  const files = useLoad(() => api.get(`/storage/files?limit=100${shown ? `&prefix=${encodeURIComponent(shown)}` : ''}`), [shown]);
  const [folder, setFolder] = useState('uploads/');
  const [progress, setProgress] = useState(null);
  const [links, setLinks] = useState({});
  const upload = useAction();
  const act = useAction();

  async function onFile(file) {
    const path = `${folder.replace(/^\/+/, '')}${file.name}`;
    const stored = await upload.run(() => api.upload(`/storage/files?path=${encodeURIComponent(path)}`, file, setProgress));
    setProgress(null);
    if (stored) files.reload();
  }
  async function download(file) {
    await act.run(async () => {
      const blob = await api.blob(`/storage/files/${file.id}/content`);
      const a = document.createElement('a');
      a.href = URL.createObjectURL(blob);
      a.download = file.path.split('/').pop();
      a.click();
      setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
    });
  }
  async function sign(file) {
    const signed = await act.run(() => api.post(`/storage/files/${file.id}/signed-url`, { expiresIn: 3600 }));
    if (signed) setLinks({ ...links, [file.id]: signed });
  }
  async function drop(file) {
    if (!confirm(`Delete ${file.path}?`)) return;
    await act.run(() => api.delete(`/storage/files/${file.id}`));
    files.reload();
  }

  return html`<h1>Storage</h1>
    ${readOnly
      ? null
      : html`<div class="card">
          <${Field} label="Folder" name="folder" value=${folder} onInput=${setFolder} />
          <${DropZone} label="Upload a file" onFile=${onFile} progress=${progress} disabled=${upload.busy} />
          <${Problem} error=${upload.error} />
        </div>`}
    <form class="inline" onSubmit=${(e) => { e.preventDefault(); setShown(prefix); }} aria-label="Find files">
      <${Field} label="Path starts with" name="prefix" value=${prefix} onInput=${setPrefix} />
      <button type="submit">Find</button>
    </form>
    <${Problem} error=${files.error ?? act.error} />
    ${files.loading && !files.data
      ? html`<${Loading} />`
      : html`<${Table}
          caption=${`${files.data?.metadata?.total ?? 0} files`}
          head=${['Path', 'Type', 'Size', 'Updated', '']}
          rows=${(files.data?.items ?? []).map((f) => [
            f.path,
            f.contentType,
            `${(f.size / 1024).toFixed(1)} KB`,
            when(f.updatedAt),
            html`<span class="row-actions">
              <button type="button" class="small" onClick=${() => download(f)} aria-label=${`Download ${f.path}`}>Download</button>
              <button type="button" class="small" onClick=${() => sign(f)} aria-label=${`Signed link to ${f.path}`}>Signed link</button>
              ${readOnly ? null : html`<button type="button" class="small danger" onClick=${() => drop(f)} aria-label=${`Delete ${f.path}`}>Delete</button>`}
              ${links[f.id] ? html`<a href=${links[f.id].url} target="_blank" rel="noopener">link until ${when(links[f.id].expiresAt)}</a>` : null}
            </span>`,
          ])}
          empty="No files."
        />`}`;
}
