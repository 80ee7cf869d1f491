/** Locale-aware figures for the console; the locale is passed in so these stay pure. */

export function formatCount(value: number, locale: string): string {
  return new Intl.NumberFormat(locale).format(value);
}

export function formatPercent(value: number, locale: string): string {
  return new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 1 }).format(value / 100);
}

/** Decimal units, matching the console's MB = 1,000,000 bytes. */
export function formatBytes(bytes: number, locale: string): string {
  const units = ['byte', 'kilobyte', 'megabyte', 'gigabyte', 'terabyte', 'petabyte'] as const;
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return new Intl.NumberFormat(locale, {
    style: 'unit',
    unit: units[unit],
    unitDisplay: 'short',
    maximumFractionDigits: unit === 0 ? 0 : 1,
  }).format(value);
}

/** An exact byte count in words ("1,234 bytes", "1 234 octets"): the unit comes from Intl, not from a message. */
export function formatByteCount(bytes: number, locale: string): string {
  return new Intl.NumberFormat(locale, { style: 'unit', unit: 'byte', unitDisplay: 'long' }).format(bytes);
}

export function formatTime(iso: string | null | undefined, locale: string): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'medium' }).format(date);
}

/** How long ago `iso` was, in words from Intl ("3 hours ago", "il y a 3 heures"); '' without a time. */
export function formatAge(iso: string | null | undefined, nowMs: number, locale: string): string {
  if (!iso) return '';
  const seconds = Math.max(0, Math.round((nowMs - new Date(iso).getTime()) / 1000));
  const steps: [Intl.RelativeTimeFormatUnit, number][] = [
    ['day', 86_400],
    ['hour', 3_600],
    ['minute', 60],
  ];
  const format = new Intl.RelativeTimeFormat(locale, { numeric: 'always' });
  for (const [unit, size] of steps) if (seconds >= size) return format.format(-Math.floor(seconds / size), unit);
  return format.format(-seconds, 'second');
}
