import { describe, expect, it } from 'vitest';
import { audioType } from './transcription.js';

const bytes = (...parts: Array<string | number[]>) =>
  Buffer.concat(
    parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'latin1') : Buffer.from(part))),
  );

describe('audioType', () => {
  it.each([
    ['an Ogg voice note', bytes('OggS', [0, 2, 0, 0]), 'audio/ogg'],
    ['WebM', bytes([0x1a, 0x45, 0xdf, 0xa3, 0, 0, 0, 0]), 'audio/webm'],
    ['an M4A', bytes([0, 0, 0, 0x20], 'ftypM4A '), 'audio/mp4'],
    ['an MP3 with an ID3 tag', bytes('ID3', [4, 0, 0, 0, 0]), 'audio/mpeg'],
    ['an MP3 frame', bytes([0xff, 0xfb, 0x90, 0x64]), 'audio/mpeg'],
    ['WAV', bytes('RIFF', [0, 0, 0, 0], 'WAVE'), 'audio/wav'],
    ['FLAC', bytes('fLaC', [0, 0, 0, 0x22]), 'audio/flac'],
  ])('recognises %s', (_name, data, type) => {
    expect(audioType(data)).toBe(type);
  });

  it('sends anything else, even a few bytes or none, as Ogg instead of throwing', () => {
    expect(audioType(bytes('RIFF', [0, 0, 0, 0], 'AVI '))).toBe('audio/ogg');
    expect(audioType(bytes('ab'))).toBe('audio/ogg');
    expect(audioType(new Uint8Array(0))).toBe('audio/ogg');
  });
});
