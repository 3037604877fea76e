/*
 * Small image filters on typed arrays, shared by the engine's operations.
 */

/** The mean over a (2r+1)² window, clipped at the edges (each pixel averages what is inside the image). */
export function boxMean(values: Float32Array, width: number, height: number, radius: number): Float32Array {
  const rows = new Float32Array(values.length);
  for (let y = 0; y < height; y++) {
    const row = y * width;
    let sum = 0;
    let count = 0;
    for (let x = 0; x <= Math.min(radius, width - 1); x++) {
      sum += values[row + x]!;
      count++;
    }
    for (let x = 0; x < width; x++) {
      rows[row + x] = sum / count;
      const enter = x + radius + 1;
      const leave = x - radius;
      if (enter < width) {
        sum += values[row + enter]!;
        count++;
      }
      if (leave >= 0) {
        sum -= values[row + leave]!;
        count--;
      }
    }
  }
  const out = new Float32Array(values.length);
  const sums = new Float64Array(width);
  let count = 0;
  for (let y = 0; y <= Math.min(radius, height - 1); y++) {
    for (let x = 0; x < width; x++) sums[x]! += rows[y * width + x]!;
    count++;
  }
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) out[y * width + x] = sums[x]! / count;
    const enter = y + radius + 1;
    const leave = y - radius;
    if (enter < height) {
      for (let x = 0; x < width; x++) sums[x]! += rows[enter * width + x]!;
      count++;
    }
    if (leave >= 0) {
      for (let x = 0; x < width; x++) sums[x]! -= rows[leave * width + x]!;
      count--;
    }
  }
  return out;
}

/**
 * The guided filter (He, Sun and Tang, 2010) of `input` steered by the grey `guide`: smooths
 * `input` while keeping the guide's edges, so a coarse mask takes the true outline of the
 * subject. Both in 0..1.
 */
export function guidedFilter(guide: Float32Array, input: Float32Array, width: number, height: number, radius: number, epsilon: number): Float32Array {
  const n = guide.length;
  const product = new Float32Array(n);
  const square = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    product[i] = guide[i]! * input[i]!;
    square[i] = guide[i]! * guide[i]!;
  }
  const meanGuide = boxMean(guide, width, height, radius);
  const meanInput = boxMean(input, width, height, radius);
  const meanProduct = boxMean(product, width, height, radius);
  const meanSquare = boxMean(square, width, height, radius);
  const a = product;
  const b = square;
  for (let i = 0; i < n; i++) {
    const covariance = meanProduct[i]! - meanGuide[i]! * meanInput[i]!;
    const variance = meanSquare[i]! - meanGuide[i]! * meanGuide[i]!;
    a[i] = covariance / (variance + epsilon);
    b[i] = meanInput[i]! - a[i]! * meanGuide[i]!;
  }
  const meanA = boxMean(a, width, height, radius);
  const meanB = boxMean(b, width, height, radius);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = meanA[i]! * guide[i]! + meanB[i]!;
  return out;
}

/** Labels 4-connected regions of non-zero `mask`; returns each pixel's label (0 outside) and each label's size. */
export function connectedRegions(mask: Uint8Array, width: number): { labels: Int32Array; sizes: number[] } {
  const labels = new Int32Array(mask.length);
  const sizes = [0];
  const stack: number[] = [];
  for (let start = 0; start < mask.length; start++) {
    if (!mask[start] || labels[start]) continue;
    const label = sizes.length;
    let size = 0;
    labels[start] = label;
    stack.push(start);
    while (stack.length > 0) {
      const at = stack.pop()!;
      size++;
      const x = at % width;
      const neighbours = [x > 0 ? at - 1 : -1, x < width - 1 ? at + 1 : -1, at >= width ? at - width : -1, at + width < mask.length ? at + width : -1];
      for (const next of neighbours) {
        if (next >= 0 && mask[next] && !labels[next]) {
          labels[next] = label;
          stack.push(next);
        }
      }
    }
    sizes.push(size);
  }
  return { labels, sizes };
}
