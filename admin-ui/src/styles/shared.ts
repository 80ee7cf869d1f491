import { css } from 'lit';

/**
 * Styles every component shares (each shadow root needs its own copy). Colours come from the
 * custom properties in index.html, which inherit into shadow roots and switch with the system
 * light/dark preference.
 */
export const shared = css`
  :host {
    color: var(--sb-text);
    font: inherit;
  }
  *,
  *::before,
  *::after {
    box-sizing: border-box;
  }
  h1 {
    font-size: 1.5rem;
    margin: 0 0 1rem;
  }
  h2 {
    font-size: 1.15rem;
    margin: 1.5rem 0 0.75rem;
  }
  p {
    margin: 0.5rem 0;
  }
  a {
    color: var(--sb-accent);
  }
  button,
  .button {
    font: inherit;
    border: 1px solid var(--sb-border-strong);
    background: var(--sb-surface);
    color: var(--sb-text);
    border-radius: 6px;
    padding: 0.45rem 0.9rem;
    cursor: pointer;
    min-height: 2.25rem;
    text-decoration: none;
    display: inline-flex;
    align-items: center;
    gap: 0.4rem;
  }
  button:hover {
    background: var(--sb-hover);
  }
  button.primary {
    background: var(--sb-accent);
    border-color: var(--sb-accent);
    color: var(--sb-on-accent);
  }
  button.primary:hover {
    filter: brightness(1.08);
  }
  button.danger {
    color: var(--sb-danger);
    border-color: var(--sb-danger);
  }
  button:disabled {
    opacity: 0.55;
    cursor: not-allowed;
  }
  :focus-visible {
    outline: 3px solid var(--sb-focus);
    outline-offset: 2px;
  }
  label {
    display: block;
    font-weight: 600;
    margin-bottom: 0.25rem;
  }
  input,
  select,
  textarea {
    font: inherit;
    color: var(--sb-text);
    background: var(--sb-input);
    border: 1px solid var(--sb-border-strong);
    border-radius: 6px;
    padding: 0.45rem 0.6rem;
    width: 100%;
    min-height: 2.25rem;
  }
  input[type='checkbox'] {
    width: auto;
    min-height: auto;
  }
  input[aria-invalid='true'],
  select[aria-invalid='true'] {
    border-color: var(--sb-danger);
  }
  .field {
    margin-bottom: 0.9rem;
  }
  .hint {
    color: var(--sb-muted);
    font-size: 0.875rem;
    margin-top: 0.2rem;
  }
  .error {
    color: var(--sb-danger);
  }
  .notice {
    border: 1px solid var(--sb-border);
    border-left: 4px solid var(--sb-accent);
    background: var(--sb-surface);
    padding: 0.6rem 0.8rem;
    border-radius: 6px;
    margin: 0.75rem 0;
  }
  .notice.error {
    border-left-color: var(--sb-danger);
  }
  .notice.ok {
    border-left-color: var(--sb-ok);
  }
  .actions {
    display: flex;
    flex-wrap: wrap;
    gap: 0.5rem;
    align-items: center;
  }
  .toolbar {
    display: flex;
    flex-wrap: wrap;
    gap: 0.75rem;
    align-items: end;
    justify-content: space-between;
    margin-bottom: 1rem;
  }
  .toolbar h1 {
    margin: 0;
  }
  .muted {
    color: var(--sb-muted);
  }
  .mono {
    font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, 'Liberation Mono', monospace;
  }
  /*
   * Names and IP addresses never break mid-word on a wide screen: French and Russian headings
   * squeeze the columns, and 'anywhere' would let a table cut '192.168.1.20' in two. Long tokens
   * (hashes, keys, channel IDs) may break anywhere, since nobody reads them split at a word.
   */
  .nobreak {
    white-space: nowrap;
  }
  .token {
    overflow-wrap: anywhere;
  }
  /* A secret shown once (an API key, the metrics token): one block, selected whole on a click. */
  .secret {
    display: block;
    padding: 0.6rem;
    border: 1px dashed var(--sb-border-strong);
    border-radius: 6px;
    background: var(--sb-surface);
    margin: 0.75rem 0;
    user-select: all;
  }
  .copied {
    color: var(--sb-ok);
  }
  /* An IPv6 address: broken only at the <wbr> after each colon (render-names.ts). */
  .ip6 {
    overflow-wrap: normal;
  }
  .visually-hidden {
    position: absolute;
    width: 1px;
    height: 1px;
    overflow: hidden;
    clip: rect(0 0 0 0);
    white-space: nowrap;
  }
  table {
    width: 100%;
    border-collapse: collapse;
    background: var(--sb-surface);
    border: 1px solid var(--sb-border);
    border-radius: 8px;
  }
  /* A cell's, heading's or figure's text may break anywhere rather than push the page sideways (lib/wrap.ts). */
  h1,
  h2,
  dd,
  td {
    overflow-wrap: anywhere;
  }
  th,
  td {
    text-align: start;
    padding: 0.55rem 0.7rem;
    border-bottom: 1px solid var(--sb-border);
    vertical-align: top;
  }
  th {
    font-size: 0.85rem;
    color: var(--sb-muted);
    font-weight: 600;
  }
  tr:last-child td {
    border-bottom: none;
  }
  .badge {
    display: inline-block;
    border-radius: 999px;
    padding: 0.05rem 0.55rem;
    font-size: 0.8rem;
    border: 1px solid var(--sb-border-strong);
    white-space: nowrap;
  }
  .badge.ok {
    color: var(--sb-ok);
    border-color: var(--sb-ok);
  }
  .badge.off {
    color: var(--sb-muted);
  }
  .badge.bad {
    color: var(--sb-danger);
    border-color: var(--sb-danger);
  }
  /* On a phone, table rows become cards; each cell names its column (data-label). */
  @media (max-width: 720px) {
    table.stack,
    table.stack tbody,
    table.stack tr,
    table.stack td {
      display: block;
      width: 100%;
    }
    table.stack thead {
      position: absolute;
      width: 1px;
      height: 1px;
      overflow: hidden;
      clip: rect(0 0 0 0);
    }
    table.stack tr {
      border-bottom: 1px solid var(--sb-border);
      padding: 0.4rem 0;
    }
    table.stack td {
      border: none;
      padding: 0.3rem 0.7rem;
    }
    /* A card has the whole width; only a name longer than the phone is wide may wrap. */
    .nobreak {
      white-space: normal;
      overflow-wrap: anywhere;
    }
    table.stack td[data-label]::before {
      content: attr(data-label);
      display: block;
      font-size: 0.8rem;
      color: var(--sb-muted);
    }
  }
  /* A list's search and filter controls above it (Agents, Hosts, Groups; Channels lays out its own). */
  .filters {
    display: flex;
    flex-wrap: wrap;
    gap: 0.75rem;
    align-items: start;
    margin-bottom: 0.75rem;
  }
  .filters .grow {
    flex: 1 1 16rem;
  }
`;
