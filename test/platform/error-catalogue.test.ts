import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSources, type SourceFile } from '../helpers/source-files.js';

/*
 * One error catalogue: a refusal's code is written in the platform's errors.ts (the refusals
 * every domain shares) or in a domain's `<domain>.errors.ts`, and everywhere else the refusal is
 * named (`assetNotFound(type, id)`), never spelled as `new ApiError(404, 'ImageNotFound', …)` or
 * a helper taking a code (`badRequest('X', …)`, as the platform once had).
 */

const SRC = path.resolve(import.meta.dirname, '../../src');

/** An error catalogue: the platform's errors.ts, or a domain's `<domain>.errors.ts`. */
const CATALOGUE = /(^|\/)([\w-]+\.)?errors\.ts$/;

/** An ApiError made with a code written out, or one of the platform's helpers that take a code given that way. */
const LITERAL_CODE = /\bnew\s+ApiError\(\s*\d+\s*,\s*['"`]|\b(?:badRequest|notFound)\(\s*['"`]/g;

/** Every place outside the catalogues that writes a code, as "file:line". */
export function literalCodes(sources: readonly SourceFile[]): string[] {
  return sources
    .filter((source) => !CATALOGUE.test(source.file))
    .flatMap((source) =>
      [...source.text.matchAll(LITERAL_CODE)].map((match) => `${source.file}:${source.text.slice(0, match.index).split('\n').length}`),
    );
}

describe('error catalogue', () => {
  const places = literalCodes(readSources(SRC));

  it('rule: error codes are written only in the error catalogues (errors.ts, <domain>.errors.ts)', () => {
    expect(places).toEqual([]);
  });

  it('the check finds each way of writing a code, and passes the catalogues and named errors', () => {
    const sources: SourceFile[] = [
      { file: 'media/media.routes.ts', text: "import x;\nthrow new ApiError(404, 'ImageNotFound', `Image ${id}`);" },
      { file: 'generation/a.ts', text: "throw new ApiError(\n  429,\n  'RegistrationQuotaExceeded',\n  message,\n);" },
      { file: 'embed/embed.service.ts', text: "throw badRequest('IncorrectlyFormedUri', m);\nthrow notFound( \"AssetNotFound\", m);" },
      { file: 'catalog/catalog.errors.ts', text: "return new ApiError(404, 'EventNotFound', m);" },
      { file: 'platform/http/errors.ts', text: "return new ApiError(400, 'InvalidRequest', m);" },
      { file: 'catalog/catalog.service.ts', text: 'throw assetNotFound(assetType, id);\nthrow new ApiError(status, code, message);' },
    ];
    expect(literalCodes(sources)).toEqual(['media/media.routes.ts:2', 'generation/a.ts:1', 'embed/embed.service.ts:1', 'embed/embed.service.ts:2']);
  });
});
