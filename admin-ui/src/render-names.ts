import { html, type TemplateResult } from 'lit';
import { addressPieces, nameClass } from './lib/wrap.js';

/** A name that stays on one line when short and may break when long (lib/wrap.ts). */
export function nameText(text: string, extra = ''): TemplateResult {
  return html`<span class="${nameClass(text)} ${extra}">${text}</span>`;
}

/** An IP address: whole when short, an IPv6 one breakable after its colons only. */
export function addressText(address: string): TemplateResult {
  const pieces = addressPieces(address);
  return html`<span class=${pieces.length > 1 ? 'ip6' : 'nobreak'}>${pieces.map((p, i) => (i === 0 ? p : html`<wbr />${p}`))}</span>`;
}
