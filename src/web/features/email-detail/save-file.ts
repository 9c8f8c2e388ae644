/** Saves `data` as a download named `name`, the way a link with `download` does. */
export function saveFile(data: Blob, name: string): void {
  const url = URL.createObjectURL(data);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.rel = 'noopener';
  document.body.appendChild(link);
  link.click();
  link.remove();
  // The download has its own copy once it started; the next task is late enough.
  window.setTimeout(() => URL.revokeObjectURL(url), 0);
}
