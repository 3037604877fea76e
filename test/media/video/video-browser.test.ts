import fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IngestService } from '../../../src/catalog/ingest/ingest.service.js';
import { CHROMIUM, HAS_CHROMIUM, LAUNCH_ARGS } from '../../helpers/chromium.js';
import { freePort } from '../../helpers/network.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';
import { makeClip, scratchDir } from './video-fixtures.js';

/** The parts of a page's <video> element the test reads (the test's types have no DOM). */
interface VideoElement {
  readyState: number;
  networkState: number;
  videoWidth: number;
  videoHeight: number;
  duration: number;
  currentTime: number;
  error: { code: number; message: string } | null;
  addEventListener(type: string, listener: () => void, options: { once: boolean }): void;
}

/** What the page's <video> reported. */
interface Playback {
  event: string;
  readyState: number;
  videoWidth: number;
  videoHeight: number;
  duration: number;
  seekedTo: number;
}

describe.skipIf(!HAS_CHROMIUM)(`a video's preview clip in a real browser (${CHROMIUM})`, () => {
  let t: TestApp;
  let dir: string;
  let origin: string;
  let browser: Browser;

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    t = await createTestApp({ env: { STOCKROOM_PUBLIC_URL: origin, STOCKROOM_VIDEO_TRANSCODE_WAIT_MS: '120000' } });
    await t.app.listen({ port, host: '127.0.0.1' });
    dir = scratchDir();
    const clip = await makeClip(dir, 'harbour.mp4', { width: 1280, height: 720, seconds: 4, scenes: 2 });
    await new IngestService({ catalog: t.services.catalog, blobs: t.services.blobs, videoTools: t.services.videoTools }).ingestRecord(
      { asset_type: 'video', id: 'clip-1', file: 'harbour.mp4', title: 'Harbour', asset_family: 'creative', product_types: ['premiumaccess'] },
      { videoPath: clip },
    );
    browser = await chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('plays from its signed URL in a plain <video src>, and seeks with byte ranges', async () => {
    const response = await fetch(`${origin}/v3/videos/clip-1?fields=preview`, { headers: { 'Api-Key': t.apiKey } });
    const preview = ((await response.json()) as { display_sizes: Array<{ name: string; uri: string }> }).display_sizes[0]!;
    expect(new URL(preview.uri).pathname).toBe('/display/clip-1/preview.mp4');
    // Made on the first request; the page then finds it ready.
    expect((await fetch(preview.uri, { method: 'HEAD' })).status).toBe(200);

    const context = await browser.newContext();
    const statuses: Array<{ range: string | undefined; status: number }> = [];
    context.on('response', (answer) => {
      if (answer.url().startsWith(`${origin}/display/`)) statuses.push({ range: answer.request().headers().range, status: answer.status() });
    });
    const page = await context.newPage();
    try {
      await page.setContent(`<!doctype html><video id="v" muted preload="auto" src="${preview.uri.replaceAll('&', '&amp;')}"></video>`);
      const playback = await page.evaluate(
        () =>
          new Promise<Playback>((resolve) => {
            const video = (globalThis as unknown as { document: { getElementById(id: string): VideoElement } }).document.getElementById('v');
            const report = (event: string) => ({
              event,
              readyState: video.readyState,
              videoWidth: video.videoWidth,
              videoHeight: video.videoHeight,
              duration: video.duration,
              seekedTo: video.currentTime,
            });
            video.addEventListener('error', () => resolve(report(`error ${String(video.error?.code)}: ${String(video.error?.message)}`)), { once: true });
            setTimeout(() => resolve(report(`no answer in 20 s (networkState ${String(video.networkState)})`)), 20_000);
            const seek = () => {
              video.addEventListener('seeked', () => resolve(report('seeked')), { once: true });
              video.currentTime = 3;
            };
            // The page may have loaded the first frames already, before this script runs.
            if (video.readyState >= 2) seek();
            else video.addEventListener('loadeddata', seek, { once: true });
          }),
      );
      expect(playback).toMatchObject({ event: 'seeked', videoWidth: 640, videoHeight: 360 });
      expect(playback.readyState).toBeGreaterThanOrEqual(2);
      expect(playback.duration).toBeCloseTo(4, 0);
      expect(playback.seekedTo).toBeCloseTo(3, 0);
      // The browser asks for ranges, and gets them.
      expect(statuses.some((entry) => entry.range !== undefined && entry.status === 206)).toBe(true);
    } finally {
      await context.close();
    }
  }, 60_000);
});
