/*
 * The nudity classifier's worker thread: decodes each picture with sharp and runs nsfwjs's
 * MobileNetV2 on TensorFlow.js's WebAssembly backend, one picture at a time, off the event
 * loop of whoever asked. The model is the one bundled inside the nsfwjs package (its weights
 * are a module of the package), so nothing is fetched from the network.
 */
import { parentPort } from 'node:worker_threads';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { load, type NSFWJS } from 'nsfwjs';
import sharp from 'sharp';
import type { NudityScores } from './media-facts.js';

export interface NudityTask {
  id: number;
  image: Uint8Array;
}

export type NudityAnswer = { id: number; scores: NudityScores } | { id: number; error: { name: string; message: string } };

/** The model's input size: MobileNetV2 as nsfwjs trained it sees 224×224 pictures. */
const INPUT_SIZE = 224;

let model: Promise<NSFWJS> | undefined;

async function loadModel(): Promise<NSFWJS> {
  await tf.setBackend('wasm');
  await tf.ready();
  // nsfwjs announces which model it loads on the console; the worker has nothing to say.
  const info = console.info;
  console.info = () => undefined;
  try {
    return await load('MobileNetV2');
  } finally {
    console.info = info;
  }
}

async function classify(image: Buffer): Promise<NudityScores> {
  model ??= loadModel();
  const nsfw = await model;
  const { data, info } = await sharp(image, { failOn: 'error' })
    .rotate()
    .resize(INPUT_SIZE, INPUT_SIZE, { fit: 'fill' })
    .flatten({ background: '#ffffff' })
    .toColourspace('srgb')
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const tensor = tf.tensor3d(new Int32Array(data), [info.height, info.width, 3], 'int32');
  try {
    const predictions = await nsfw.classify(tensor, 5);
    const scores: NudityScores = { drawing: 0, hentai: 0, neutral: 0, porn: 0, sexy: 0 };
    for (const { className, probability } of predictions) {
      scores[className.toLowerCase() as keyof NudityScores] = Math.round(probability * 1e6) / 1e6;
    }
    return scores;
  } finally {
    tensor.dispose();
  }
}

// One picture at a time: the wasm backend runs on this thread, so a queue costs nothing.
let queue: Promise<unknown> = Promise.resolve();

parentPort?.on('message', ({ id, image }: NudityTask) => {
  queue = queue.then(() =>
    classify(Buffer.from(image.buffer, image.byteOffset, image.byteLength)).then(
      (scores) => parentPort!.postMessage({ id, scores } satisfies NudityAnswer),
      (error: unknown) =>
        parentPort!.postMessage({
          id,
          error: { name: error instanceof Error ? error.name : 'Error', message: error instanceof Error ? error.message : String(error) },
        } satisfies NudityAnswer),
    ),
  );
});
