// Preloaded (`node --import`) into a process under test. On SIGUSR2 it writes to the file named
// by LOADED_PACKAGES_FILE the npm packages the process has evaluated so far, as a JSON array:
// those CommonJS loaded (require's cache) and those loaded as ES modules (seen by a load hook,
// which runs on the loader's thread and posts each module's URL back here).
import fs from 'node:fs';
import Module, { register } from 'node:module';
import { fileURLToPath } from 'node:url';
import { MessageChannel } from 'node:worker_threads';

const moduleUrls = new Set();
const { port1, port2 } = new MessageChannel();
port1.on('message', (url) => moduleUrls.add(url));
// Listening must not keep an exiting process alive.
port1.unref();
register('./loaded-packages-hooks.js', import.meta.url, { data: { port: port2 }, transferList: [port2] });

/** The package a file belongs to: the path after its last node_modules folder, scope included. */
function packageOf(file) {
  const at = file.lastIndexOf('/node_modules/');
  if (at < 0) return undefined;
  const parts = file.slice(at + '/node_modules/'.length).split('/');
  return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
}

const out = process.env.LOADED_PACKAGES_FILE;
if (out) {
  process.on('SIGUSR2', () => {
    const files = [...Object.keys(Module._cache), ...[...moduleUrls].filter((url) => url.startsWith('file:')).map((url) => fileURLToPath(url))];
    const packages = new Set(files.map(packageOf).filter((name) => name !== undefined));
    // Written whole under another name first: the test reads the file as soon as it appears.
    fs.writeFileSync(`${out}.partial`, JSON.stringify([...packages].sort()));
    fs.renameSync(`${out}.partial`, out);
  });
}
