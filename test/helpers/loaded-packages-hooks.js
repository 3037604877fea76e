// The module hooks of loaded-packages-probe.js: each module's URL, as it is loaded, to the probe.
let port;

export function initialize(data) {
  port = data.port;
}

export async function load(url, context, nextLoad) {
  port.postMessage(url);
  return nextLoad(url, context);
}
