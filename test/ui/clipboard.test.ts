import { describe, expect, it } from 'vitest';
import { copyText } from '../../admin-ui/src/lib/clipboard.js';

const KEY = 'sbk_agt_abc.secret';

function recordingClipboard(fail?: Error) {
  const written: string[] = [];
  return {
    written,
    writeText: async (text: string) => {
      if (fail) throw fail;
      written.push(text);
    },
  };
}

describe('copying a new API key (REQ-57)', () => {
  it('reports success only after the clipboard took the exact key', async () => {
    const clipboard = recordingClipboard();
    expect(await copyText(KEY, { clipboard })).toEqual({ ok: true, via: 'clipboard' });
    expect(clipboard.written).toEqual([KEY]);
  });

  it('falls back to the legacy copy when the Clipboard API refuses, and says so truthfully', async () => {
    const clipboard = recordingClipboard(new DOMException('Write permission denied.', 'NotAllowedError'));
    const legacy: string[] = [];
    const outcome = await copyText(KEY, {
      clipboard,
      legacyCopy: (text) => {
        legacy.push(text);
        return true;
      },
    });
    expect(outcome).toEqual({ ok: true, via: 'legacy' });
    expect(legacy).toEqual([KEY]);
  });

  it('reports failure, with the browser reason, when every way refuses', async () => {
    const clipboard = recordingClipboard(new DOMException('Write permission denied.', 'NotAllowedError'));
    expect(await copyText(KEY, { clipboard, legacyCopy: () => false })).toEqual({
      ok: false,
      reason: 'refused',
      detail: 'NotAllowedError: Write permission denied.',
    });
    expect(await copyText(KEY, { clipboard })).toEqual({
      ok: false,
      reason: 'refused',
      detail: 'NotAllowedError: Write permission denied.',
    });
  });

  it('reports failure when the legacy copy says it did not copy or throws', async () => {
    expect(await copyText(KEY, { legacyCopy: () => false })).toEqual({ ok: false, reason: 'refused' });
    expect(
      await copyText(KEY, {
        legacyCopy: () => {
          throw new Error('execCommand is gone');
        },
      }),
    ).toEqual({ ok: false, reason: 'refused', detail: 'Error: execCommand is gone' });
  });

  it('reports "unavailable" on a page with no clipboard access at all (plain http on a LAN address)', async () => {
    expect(await copyText(KEY, { clipboard: undefined, legacyCopy: undefined })).toEqual({
      ok: false,
      reason: 'unavailable',
    });
  });
});
