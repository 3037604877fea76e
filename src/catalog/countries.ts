import countries from 'i18n-iso-countries';

export interface Country {
  iso_alpha_2: string;
  iso_alpha_3: string;
  name: string;
}

const codes: ReadonlyArray<{ alpha2: string; alpha3: string }> = Object.entries(countries.getAlpha2Codes()).map(
  ([alpha2, alpha3]) => ({ alpha2, alpha3 }),
);
const byLanguage = new Map<string, Country[]>();

function displayNames(language: string): Intl.DisplayNames {
  try {
    return new Intl.DisplayNames([language, 'en-US'], { type: 'region', fallback: 'code' });
  } catch {
    return new Intl.DisplayNames(['en-US'], { type: 'region', fallback: 'code' });
  }
}

/**
 * ISO 3166 countries with their names in the caller's language, from Node's ICU data;
 * the alpha-3 codes come from the ISO table. Sorted by the localized name.
 */
export function listCountries(language: string): Country[] {
  const cached = byLanguage.get(language);
  if (cached) return cached;
  const names = displayNames(language);
  const collator = new Intl.Collator(language);
  const list = codes
    .map(({ alpha2, alpha3 }) => ({ iso_alpha_2: alpha2, iso_alpha_3: alpha3, name: names.of(alpha2) ?? alpha2 }))
    .sort((a, b) => collator.compare(a.name, b.name));
  if (byLanguage.size > 100) byLanguage.clear();
  byLanguage.set(language, list);
  return list;
}

let alpha2ByEnglishName: Map<string, string> | undefined;

/**
 * A country name as the catalogue stores it (English, as ingested) in the caller's language;
 * a name that is no ISO 3166 country in English is returned as it is.
 */
export function localizeCountryName(name: string, language: string): string {
  alpha2ByEnglishName ??= new Map(listCountries('en-US').map((c) => [c.name.toLowerCase(), c.iso_alpha_2]));
  const code = alpha2ByEnglishName.get(name.trim().toLowerCase());
  if (code === undefined) return name;
  return listCountries(language).find((c) => c.iso_alpha_2 === code)?.name ?? name;
}
