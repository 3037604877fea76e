import fs from 'node:fs';
import path from 'node:path';

/** A source file of the product, for the tests that read the code as text (boundaries, error codes). */
export interface SourceFile {
  /** relative to the folder read, with forward slashes */
  file: string;
  text: string;
}

/** Every file below `dir` whose name matches `names` (TypeScript by default). */
export function readSources(dir: string, names: RegExp = /\.ts$/, prefix = ''): SourceFile[] {
  const files: SourceFile[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...readSources(full, names, relative));
    else if (names.test(entry.name)) files.push({ file: relative, text: fs.readFileSync(full, 'utf8') });
  }
  return files;
}
