/**
 * An email address as people type one: a local part of visible characters (no spaces, quotes
 * or brackets) and a DNS domain of two labels or more. RFC 5321's bounds: 64 characters before
 * the @, 254 in all. Written as a pattern so that schemas state the same rule.
 */
export const EMAIL_ADDRESS_PATTERN =
  '^[^\\s@"<>(),;:\\\\\\[\\]]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$';
export const MAX_EMAIL_ADDRESS_LENGTH = 254;

const EMAIL_ADDRESS = new RegExp(EMAIL_ADDRESS_PATTERN, 'u');

export function isEmailAddress(text: string): boolean {
  return text.length <= MAX_EMAIL_ADDRESS_LENGTH && EMAIL_ADDRESS.test(text);
}
