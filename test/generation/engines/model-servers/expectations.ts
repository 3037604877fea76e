import { expect } from 'vitest';
import { freePort } from '../../../helpers/network.js';
import { decode } from './test-server.js';

export async function expectPng(data: Buffer, width: number, height: number): Promise<void> {
  const picture = await decode(data);
  expect(picture.format).toBe('png');
  expect([picture.width, picture.height]).toEqual([width, height]);
}

/** The URL of a loopback port nothing listens on. */
export async function closedPortUrl(): Promise<string> {
  return `http://127.0.0.1:${await freePort()}`;
}
