/**
 * Puts text on the clipboard. The async Clipboard API needs a secure context (https or
 * localhost); a self-hosted server on plain http falls back to a hidden textarea + execCommand.
 */
export async function copyText(text: string): Promise<void> {
  if (window.isSecureContext && navigator.clipboard?.writeText) {
    await navigator.clipboard.writeText(text);
    return;
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  // Inside an open modal dialog the rest of the page is inert, so the textarea goes in the dialog.
  (document.querySelector('dialog[open]') ?? document.body).appendChild(area);
  const previous = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  area.select();
  try {
    if (!document.execCommand('copy')) throw new Error('Copy was refused by the browser');
  } finally {
    area.remove();
    previous?.focus();
  }
}
