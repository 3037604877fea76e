import { createRequire } from 'node:module';

/** The few OpenCV.js calls the built-in engine makes, typed here rather than through the package's sprawling declarations. */
export interface OpenCvMat {
  readonly data: Uint8Array;
  readonly rows: number;
  readonly cols: number;
  delete(): void;
}

export interface OpenCv {
  Mat: new (...args: [] | [rows: number, cols: number, type: number]) => OpenCvMat;
  Rect: new (x: number, y: number, width: number, height: number) => unknown;
  CV_8UC1: number;
  CV_8UC3: number;
  GC_BGD: number;
  GC_FGD: number;
  GC_PR_BGD: number;
  GC_PR_FGD: number;
  GC_INIT_WITH_MASK: number;
  INPAINT_TELEA: number;
  grabCut(image: OpenCvMat, mask: OpenCvMat, rect: unknown, background: OpenCvMat, foreground: OpenCvMat, iterations: number, mode: number): void;
  inpaint(source: OpenCvMat, mask: OpenCvMat, destination: OpenCvMat, radius: number, method: number): void;
}

let loading: Promise<{ cv: OpenCv }> | undefined;

/**
 * OpenCV.js, compiled once per process (about 0.2 s). Its module object is a thenable whose
 * `then` hands back the module itself, so resolving a promise with it (or awaiting it) would
 * adopt it again forever: the module travels inside a plain object, `(await loadOpenCv()).cv`.
 */
export function loadOpenCv(): Promise<{ cv: OpenCv }> {
  loading ??= new Promise<{ cv: OpenCv }>((resolve, reject) => {
    try {
      const module = createRequire(import.meta.url)('@techstark/opencv-js') as { then(ready: (cv: OpenCv) => void): void };
      module.then((cv) => resolve({ cv }));
    } catch (error) {
      reject(error instanceof Error ? error : new Error(String(error)));
    }
  });
  return loading;
}

/** Runs `use` and frees every Mat it was given, whatever happens: OpenCV.js memory is not garbage-collected. */
export function withMats<T>(mats: OpenCvMat[], use: () => T): T {
  try {
    return use();
  } finally {
    for (const mat of mats) mat.delete();
  }
}
