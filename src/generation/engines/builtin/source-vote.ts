/**
 * One voting step of Wexler, Shechtman and Irani's completion ("Space-time completion of video",
 * 2007), shared by the patch fill's seam blending and the full-size fill's detail: each target
 * pixel takes the mean of what its hole neighbours' sources, shifted to it, hold. Inside one
 * copied patch they agree; across the line where two patches meet they differ, and the mean
 * softens that line.
 *
 * A hot loop (every hole pixel times a (2·radius+1)² window, at every level of a fill): plain
 * loops over typed arrays, no callback and nothing allocated per pixel.
 */

export interface SourceField {
  width: number;
  height: number;
  /** 1 where the pixel is filled (it votes, and is voted on); 0 where it is known picture. */
  hole: Uint8Array;
  /** For each hole pixel, the pixel its value was copied from. */
  sources: Int32Array;
}

/** A buffer of three channels a pixel, read by the vote or written by it. */
type Channels = { readonly length: number; [index: number]: number };

/**
 * For each of `targets` (hole pixels), the mean over its hole neighbours q within `radius` of
 * `values` at q's source shifted to the target (plus `shift` of q, when given), written to `out`.
 * A vote whose shifted source falls off the picture or inside the hole is not counted; a target
 * with no vote is left as it is. `values` and `out` must not be the same buffer.
 */
export function voteFromSources(field: SourceField, targets: ArrayLike<number>, radius: number, values: Channels, out: Channels, shift?: Int16Array): void {
  const { width, height, hole, sources } = field;
  for (let n = 0; n < targets.length; n++) {
    const p = targets[n]!;
    const x = p % width;
    const y = (p - x) / width;
    let c0 = 0;
    let c1 = 0;
    let c2 = 0;
    let votes = 0;
    for (let qy = Math.max(0, y - radius); qy <= Math.min(height - 1, y + radius); qy++) {
      for (let qx = Math.max(0, x - radius); qx <= Math.min(width - 1, x + radius); qx++) {
        const q = qy * width + qx;
        if (!hole[q]) continue;
        const from = sources[q]!;
        const sx = (from % width) + x - qx;
        const sy = Math.floor(from / width) + y - qy;
        if (sx < 0 || sy < 0 || sx >= width || sy >= height || hole[sy * width + sx]) continue;
        const s = (sy * width + sx) * 3;
        if (shift === undefined) {
          c0 += values[s]!;
          c1 += values[s + 1]!;
          c2 += values[s + 2]!;
        } else {
          c0 += values[s]! + shift[q * 3]!;
          c1 += values[s + 1]! + shift[q * 3 + 1]!;
          c2 += values[s + 2]! + shift[q * 3 + 2]!;
        }
        votes++;
      }
    }
    if (votes === 0) continue;
    out[p * 3] = c0 / votes;
    out[p * 3 + 1] = c1 / votes;
    out[p * 3 + 2] = c2 / votes;
  }
}

/** The pixels where `mask` is 1, in reading order. */
export function pixelsOf(mask: Uint8Array): Int32Array {
  let count = 0;
  for (let i = 0; i < mask.length; i++) count += mask[i]!;
  const pixels = new Int32Array(count);
  for (let i = 0, n = 0; i < mask.length; i++) if (mask[i]) pixels[n++] = i;
  return pixels;
}

/** The offsets of a patch about a centre that stay inside the picture: dy from top to bottom, dx from left to right. */
export interface PatchOffsets {
  top: number;
  bottom: number;
  left: number;
  right: number;
}

/**
 * Clips the patch of radius `r` about (cx, cy) to a picture of `width` × `height`, into `into`
 * (reused by the caller, so the patch comparisons, the fill's hottest loop, allocate nothing and
 * test no bound per pixel).
 */
export function clipPatch(cx: number, cy: number, r: number, width: number, height: number, into: PatchOffsets): PatchOffsets {
  into.top = Math.max(-r, -cy);
  into.bottom = Math.min(r, height - 1 - cy);
  into.left = Math.max(-r, -cx);
  into.right = Math.min(r, width - 1 - cx);
  return into;
}
