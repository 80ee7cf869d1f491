export type CopyOutcome =
  | { ok: true; via: 'clipboard' | 'legacy' }
  /** `unavailable`: no way to copy in this page; `refused`: the browser said no (detail says how). */
  | { ok: false; reason: 'unavailable' | 'refused'; detail?: string };

export interface CopyMeans {
  /** `navigator.clipboard`: absent outside secure contexts (plain http on a LAN address). */
  clipboard?: Pick<Clipboard, 'writeText'> | undefined;
  /** The pre-Clipboard-API way (`execCommand('copy')` on a selection); answers whether it copied. */
  legacyCopy?: ((text: string) => boolean) | undefined;
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/**
 * Copies text and reports what really happened (REQ-57): success only when an API confirmed the
 * write. The legacy path exists because browsers hide `navigator.clipboard` on plain-http LAN
 * addresses, which is how many self-hosted consoles are opened.
 */
export async function copyText(text: string, means: CopyMeans): Promise<CopyOutcome> {
  let detail: string | undefined;
  if (means.clipboard) {
    try {
      await means.clipboard.writeText(text);
      return { ok: true, via: 'clipboard' };
    } catch (error) {
      detail = describe(error);
    }
  }
  if (means.legacyCopy) {
    try {
      if (means.legacyCopy(text)) return { ok: true, via: 'legacy' };
    } catch (error) {
      detail ??= describe(error);
    }
    return detail === undefined ? { ok: false, reason: 'refused' } : { ok: false, reason: 'refused', detail };
  }
  return detail === undefined ? { ok: false, reason: 'unavailable' } : { ok: false, reason: 'refused', detail };
}

/** `execCommand('copy')` over a hidden, selected textarea; true only when the browser says it copied. */
export function legacyCopy(text: string): boolean {
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.append(area);
  area.select();
  try {
    return document.execCommand('copy');
  } finally {
    area.remove();
  }
}
