/**
 * The text of a value in the caller's language: an exact translation (`pt-BR`), then the
 * language alone (`pt`), then any regional form of it (`pt-PT`), then the original text.
 */
export function localizedText(text: string, translations: Readonly<Record<string, string>> | undefined, language: string): string {
  if (!translations) return text;
  const wanted = language.toLowerCase();
  const primary = wanted.split('-')[0]!;
  let regional: string | undefined;
  let plain: string | undefined;
  for (const [tag, value] of Object.entries(translations)) {
    const lower = tag.toLowerCase();
    if (lower === wanted) return value;
    if (lower === primary) plain = value;
    else if (regional === undefined && lower.split('-')[0] === primary) regional = value;
  }
  return plain ?? regional ?? text;
}
