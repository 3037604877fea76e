/**
 * The prompt policy: a configured list of blocked terms (STOCKROOM_GENERATION_BLOCKED_TERMS).
 * A request whose prompt or negative prompt holds one, as whole words in any case, gets results
 * marked is_blocked: no engine runs for it and no pixels are kept.
 */
export class PromptPolicy {
  private readonly patterns: RegExp[];

  constructor(terms: readonly string[]) {
    this.patterns = terms.map((term) => new RegExp(`(?<![\\p{L}\\p{N}])${escape(term.toLowerCase())}(?![\\p{L}\\p{N}])`, 'iu'));
  }

  blocks(...texts: ReadonlyArray<string | null | undefined>): boolean {
    return texts.some((text) => text != null && this.patterns.some((pattern) => pattern.test(text)));
  }
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s+/g, '\\s+');
}
