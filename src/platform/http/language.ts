export const DEFAULT_LANGUAGE = 'en-US';

const cache = new Map<string, string>();

/**
 * The caller's language from Accept-Language: the tag with the highest q, in
 * canonical case (`pt-br` → `pt-BR`); en-US when the header is absent or unreadable.
 */
export function preferredLanguage(header: string | undefined): string {
  if (!header) return DEFAULT_LANGUAGE;
  const cached = cache.get(header);
  if (cached) return cached;
  let best = DEFAULT_LANGUAGE;
  let bestQ = -1;
  for (const part of header.split(',')) {
    const [rawTag, ...params] = part.trim().split(';');
    const tag = rawTag?.trim();
    if (!tag || tag === '*') continue;
    let q = 1;
    for (const param of params) {
      const [k, v] = param.trim().split('=');
      if (k === 'q' && v !== undefined) q = Number(v);
    }
    if (!Number.isFinite(q) || q <= bestQ) continue;
    try {
      best = Intl.getCanonicalLocales(tag)[0] ?? best;
      bestQ = q;
    } catch {
      // An unreadable tag is passed over, as if it were not there.
    }
  }
  if (cache.size > 500) cache.clear();
  cache.set(header, best);
  return best;
}
