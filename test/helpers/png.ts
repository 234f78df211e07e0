/** A minimal PNG reader for the depict tests: no image library, node:zlib inflates the pixels. */
import assert from "node:assert/strict";
import { inflateSync } from "node:zlib";

export interface Decoded {
  width: number;
  height: number;
  /** RGBA, 4 bytes a pixel. */
  pixels: Uint8Array;
}

/** A minimal PNG decoder for 8-bit RGB/RGBA/grey(+alpha) non-interlaced images (what resvg writes). */
export function decodePng(png: Buffer): Decoded {
  assert.deepEqual([...png.subarray(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10], "PNG signature");
  let offset = 8;
  let width = 0;
  let height = 0;
  let colourType = -1;
  const idat: Buffer[] = [];
  let sawEnd = false;
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString("latin1", offset + 4, offset + 8);
    const data = png.subarray(offset + 8, offset + 8 + length);
    if (type === "IHDR") {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      assert.equal(data[8], 8, "8 bits per channel");
      colourType = data[9]!;
      assert.equal(data[12], 0, "not interlaced");
    } else if (type === "IDAT") {
      idat.push(data);
    } else if (type === "IEND") {
      sawEnd = true;
    }
    offset += 12 + length;
  }
  assert.ok(sawEnd, "IEND chunk");
  const channels = ({ 0: 1, 2: 3, 4: 2, 6: 4 } as Record<number, number>)[colourType];
  assert.ok(channels !== undefined, `supported colour type (${colourType})`);
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  assert.equal(raw.length, height * (stride + 1), "inflated size matches IHDR");
  const out = new Uint8Array(width * height * 4);
  let prev = new Uint8Array(stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const cur = new Uint8Array(stride);
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? cur[i - channels]! : 0;
      const b = prev[i]!;
      const c = i >= channels ? prev[i - channels]! : 0;
      let v = line[i]!;
      if (filter === 1) v += a;
      else if (filter === 2) v += b;
      else if (filter === 3) v += (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      } else assert.equal(filter, 0, "known filter type");
      cur[i] = v & 0xff;
    }
    for (let x = 0; x < width; x++) {
      const s = x * channels;
      const d = (y * width + x) * 4;
      const grey = channels <= 2;
      out[d] = cur[s]!;
      out[d + 1] = grey ? cur[s]! : cur[s + 1]!;
      out[d + 2] = grey ? cur[s]! : cur[s + 2]!;
      out[d + 3] = channels === 4 ? cur[s + 3]! : channels === 2 ? cur[s + 1]! : 255;
    }
    prev = cur;
  }
  return { width, height, pixels: out };
}

export function countPixels(img: Decoded, keep: (r: number, g: number, b: number, a: number) => boolean): number {
  let n = 0;
  for (let i = 0; i < img.pixels.length; i += 4) if (keep(img.pixels[i]!, img.pixels[i + 1]!, img.pixels[i + 2]!, img.pixels[i + 3]!)) n++;
  return n;
}
