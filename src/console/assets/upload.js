// A file picker that also takes a drop, and shows the upload's progress.
import { useState } from 'preact/hooks';
import { html } from './ui.js';

export function DropZone({ label, onFile, progress, disabled }) {
  const [over, setOver] = useState(false);
  const [id] = useState(() => `drop${Math.random().toString(36).slice(2, 8)}`);
  function take(files) {
    if (!disabled && files && files.length > 0) onFile(files[0]);
  }
  return html`<div
    class=${`drop ${over ? 'over' : ''}`}
    onDragOver=${(e) => { e.preventDefault(); setOver(true); }}
    onDragLeave=${() => setOver(false)}
    onDrop=${(e) => { e.preventDefault(); setOver(false); take(e.dataTransfer?.files); }}
  >
    <label for=${id}>${label} <span class="hint">(choose a file or drop it here)</span></label>
    <input id=${id} type="file" disabled=${disabled} onChange=${(e) => take(e.currentTarget.files)} />
    ${progress !== undefined && progress !== null
      ? html`<progress max="1" value=${progress} aria-label="Upload progress">${Math.round(progress * 100)} %</progress>`
      : null}
  </div>`;
}
